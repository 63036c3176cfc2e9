/* The shared file pointer family: MPI_File_write_shared (the ranks in turn, in rank order)
 * and MPI_File_write_ordered in turn, each round following the last through the shared
 * pointer; read back from the start with MPI_File_read_shared and _read_ordered
 * (mpiio_family.h). */
#include "mpiio_family.h"

static void write_shared(MPI_File fh, int k, const char *buf, long long block)
{
    (void)k;
    family_check(MPI_File_write_shared(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                 "MPI_File_write_shared");
}

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    if (k % 2 == 0)
        family_in_turn(write_shared, fh, k, buf, block);
    else
        family_check(MPI_File_write_ordered(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_write_ordered");
}

static void read_shared(MPI_File fh, int k, const char *buf, long long block)
{
    (void)k;
    family_check(MPI_File_read_shared(fh, (char *)buf, (int)block, MPI_BYTE,
                                      MPI_STATUS_IGNORE), "MPI_File_read_shared");
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    if (k == 0)
        family_seek_shared(fh, 0, block);
    if (k % 2 == 0)
        family_in_turn(read_shared, fh, k, buf, block);
    else
        family_check(MPI_File_read_ordered(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_read_ordered");
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_shared_pointer", 2, write_round, read_round};
    return family_main(argc, argv, &family);
}
