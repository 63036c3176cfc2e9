/* An HDF5 program that sets its own alignment on one access list (the default driver, sec2: it
 * knows a file open already by its device and inode and shares it, where Debian's HDF5 1.10
 * cannot tell for an MPI-IO file) and opens files with it: FILE created, FILE opened again while
 * open, then SECOND (another name for FILE, or any HDF5 file) while FILE is open. After each open
 * it prints the alignment its list holds, "alignment THRESHOLD BOUNDARY", on rank 0: the
 * interposer sets the config's values on this list for the open and must put the program's back.
 *
 *   fapl_reuse FILE SECOND
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>

static void print_alignment(hid_t fapl, int rank)
{
    hsize_t threshold = 0, boundary = 0;
    H5Pget_alignment(fapl, &threshold, &boundary);
    if (rank == 0)
        printf("alignment %llu %llu\n", (unsigned long long)threshold,
               (unsigned long long)boundary);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: %s FILE SECOND\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_alignment(fapl, 1, 4096);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    print_alignment(fapl, rank);
    hid_t again = H5Fopen(argv[1], H5F_ACC_RDWR, fapl);
    print_alignment(fapl, rank);
    hid_t second = H5Fopen(argv[2], H5F_ACC_RDWR, fapl);
    print_alignment(fapl, rank);
    int failed = file < 0 || again < 0 || second < 0;
    H5Fclose(second);
    H5Fclose(again);
    H5Fclose(file);
    H5Pclose(fapl);
    MPI_Finalize();
    return failed;
}
