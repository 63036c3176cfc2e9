/* The explicit-offset family: MPI_File_write_at and _write_at_all in turn, read back with
 * MPI_File_read_at and _read_at_all (mpiio_family.h). */
#include "mpiio_family.h"

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    if (k % 2 == 0)
        family_check(MPI_File_write_at(fh, at, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_write_at");
    else
        family_check(MPI_File_write_at_all(fh, at, buf, (int)block, MPI_BYTE,
                                           MPI_STATUS_IGNORE), "MPI_File_write_at_all");
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    if (k % 2 == 0)
        family_check(MPI_File_read_at(fh, at, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_read_at");
    else
        family_check(MPI_File_read_at_all(fh, at, buf, (int)block, MPI_BYTE,
                                          MPI_STATUS_IGNORE), "MPI_File_read_at_all");
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_explicit_offsets", 2, write_round, read_round};
    return family_main(argc, argv, &family);
}
