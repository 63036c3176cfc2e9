/* Writes with every kind of file selection the interposer's capture must describe: points,
 * a strided hyperslab, H5S_ALL from one rank only, and an extent change it cannot express.
 *
 *     mpiexec -n N selections_writer FILE.h5
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

#define PER_RANK 4

static hid_t dataset(hid_t file, const char *name, hsize_t size, hsize_t max, hid_t dcpl)
{
    hid_t space = H5Screate_simple(1, &size, &max);
    hid_t id = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose(space);
    return id;
}

/* Rank r writes elements 4r, 4r+1 and 4r+3 (independently). */
static void write_points(hid_t file, int rank, int size, const int *values)
{
    hid_t d = dataset(file, "/points", (hsize_t)(PER_RANK * size), (hsize_t)(PER_RANK * size),
                      H5P_DEFAULT);
    hsize_t points[3] = {(hsize_t)PER_RANK * rank, (hsize_t)PER_RANK * rank + 1,
                         (hsize_t)PER_RANK * rank + 3}, n = 3;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &n, NULL);
    H5Sselect_elements(fs, H5S_SELECT_SET, 3, points);
    H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, values);
    H5Sclose(ms), H5Sclose(fs), H5Dclose(d);
}

/* Rank r writes every size-th element from r (collectively): a strided hyperslab. */
static void write_strided(hid_t file, int rank, int size, hid_t dxpl, const int *values)
{
    hid_t d = dataset(file, "/strided", (hsize_t)(PER_RANK * size), (hsize_t)(PER_RANK * size),
                      H5P_DEFAULT);
    hsize_t start = (hsize_t)rank, stride = (hsize_t)size, count = PER_RANK, n = PER_RANK;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, &stride, &count, NULL);
    H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, values);
    H5Sclose(ms), H5Sclose(fs), H5Dclose(d);
}

/* Rank 0 alone writes the whole dataset (H5S_ALL). */
static void write_from_rank0(hid_t file, int rank, const int *values)
{
    hid_t d = dataset(file, "/rank0", PER_RANK, PER_RANK, H5P_DEFAULT);
    if (rank == 0)
        H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(d);
}

static void grow(hid_t file)
{
    hsize_t chunk = PER_RANK, bigger = 2 * PER_RANK;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = dataset(file, "/grow", PER_RANK, H5S_UNLIMITED, dcpl);
    H5Dset_extent(d, &bigger);
    H5Dclose(d), H5Pclose(dcpl);
}

int main(int argc, char **argv)
{
    int rank, size, values[PER_RANK] = {1, 2, 3, 4};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: selections_writer FILE.h5\n");
        MPI_Finalize();
        return 2;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    write_points(file, rank, size, values);
    write_strided(file, rank, size, dxpl, values);
    write_from_rank0(file, rank, values);
    grow(file);
    H5Fclose(file);
    H5Pclose(dxpl), H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
