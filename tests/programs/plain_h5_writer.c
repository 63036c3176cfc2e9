/* A parallel HDF5 program that knows nothing of iotwin: each rank writes its block of one
 * shared 1D dataset (collective transfer) and exits 0. Used to test `iotwin run -- PROGRAM`.
 *
 *   plain_h5_writer FILE KIB_PER_RANK
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || atol(argv[2]) <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE KIB_PER_RANK\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hsize_t count = (hsize_t)atol(argv[2]) * 1024 / sizeof(int);
    int *values = malloc(count * sizeof(int));
    for (hsize_t i = 0; i < count; i++)
        values[i] = rank;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t total = count * (hsize_t)size, offset = count * (hsize_t)rank;
    hid_t filespace = H5Screate_simple(1, &total, NULL);
    hid_t dataset = H5Dcreate2(file, "data", H5T_NATIVE_INT, filespace, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &offset, NULL, &count, NULL);
    hid_t memspace = H5Screate_simple(1, &count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t status = H5Dwrite(dataset, H5T_NATIVE_INT, memspace, filespace, dxpl, values);

    H5Pclose(dxpl);
    H5Sclose(memspace);
    H5Sclose(filespace);
    H5Dclose(dataset);
    H5Fclose(file);
    H5Pclose(fapl);
    free(values);
    MPI_Finalize();
    return status < 0 ? 1 : 0;
}
