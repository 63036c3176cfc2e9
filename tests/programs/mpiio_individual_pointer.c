/* The individual file pointer family: MPI_File_seek, then MPI_File_write and _write_all in
 * turn, read back with MPI_File_read and _read_all (mpiio_family.h). */
#include "mpiio_family.h"

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    family_seek(fh, k, block);
    if (k % 2 == 0)
        family_check(MPI_File_write(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_write");
    else
        family_check(MPI_File_write_all(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_write_all");
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    family_seek(fh, k, block);
    if (k % 2 == 0)
        family_check(MPI_File_read(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_read");
    else
        family_check(MPI_File_read_all(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_read_all");
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_individual_pointer", 2, write_round,
                                         read_round};
    return family_main(argc, argv, &family);
}
