/* One dataset written three times through one transfer list of the program's own, whose MPI-IO
 * mode it changes between the writes: independent, collective, independent. After each write it
 * prints the mode its list holds ("mode independent" / "mode collective", rank 0): a config's
 * transfer mode is set on this list for the write and must come off before the next.
 *
 *   dxpl_switch FILE
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

enum { ELEMENTS = 16 };

static const H5FD_mpio_xfer_t MODES[] = {H5FD_MPIO_INDEPENDENT, H5FD_MPIO_COLLECTIVE,
                                         H5FD_MPIO_INDEPENDENT};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double values[ELEMENTS];
    for (int i = 0; i < ELEMENTS; i++)
        values[i] = rank * ELEMENTS + i;
    hsize_t dims = (hsize_t)size * ELEMENTS, offset = (hsize_t)rank * ELEMENTS, count = ELEMENTS;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(1, &dims, NULL), memory = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &offset, NULL, &count, NULL);
    hid_t dataset = H5Dcreate2(file, "d", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    herr_t status = 0;
    for (int i = 0; i < 3; i++) {
        H5FD_mpio_xfer_t held = H5FD_MPIO_INDEPENDENT;
        H5Pset_dxpl_mpio(dxpl, MODES[i]);
        status |= H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, dxpl, values);
        H5Pget_dxpl_mpio(dxpl, &held);
        if (rank == 0)
            printf("mode %s\n", held == H5FD_MPIO_COLLECTIVE ? "collective" : "independent");
    }
    H5Pclose(dxpl);
    H5Dclose(dataset);
    H5Sclose(memory);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fapl);
    MPI_Finalize();
    return status < 0 ? 1 : 0;
}
