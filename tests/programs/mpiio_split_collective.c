/* The split collective family: MPI_File_write_at_all_begin / _end, _write_all_begin / _end
 * (after MPI_File_seek) and _write_ordered_begin / _end (after MPI_File_seek_shared); read back
 * with the matching _read_ ... _begin / _end pairs (mpiio_family.h). */
#include "mpiio_family.h"

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    int n = (int)block;
    if (k % 3 == 0) {
        family_check(MPI_File_write_at_all_begin(fh, at, buf, n, MPI_BYTE),
                     "MPI_File_write_at_all_begin");
        family_check(MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE),
                     "MPI_File_write_at_all_end");
    } else if (k % 3 == 1) {
        family_seek(fh, k, block);
        family_check(MPI_File_write_all_begin(fh, buf, n, MPI_BYTE), "MPI_File_write_all_begin");
        family_check(MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE),
                     "MPI_File_write_all_end");
    } else {
        family_seek_shared(fh, k, block);
        family_check(MPI_File_write_ordered_begin(fh, buf, n, MPI_BYTE),
                     "MPI_File_write_ordered_begin");
        family_check(MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE),
                     "MPI_File_write_ordered_end");
    }
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    int n = (int)block;
    if (k % 3 == 0) {
        family_check(MPI_File_read_at_all_begin(fh, at, buf, n, MPI_BYTE),
                     "MPI_File_read_at_all_begin");
        family_check(MPI_File_read_at_all_end(fh, buf, MPI_STATUS_IGNORE),
                     "MPI_File_read_at_all_end");
    } else if (k % 3 == 1) {
        family_seek(fh, k, block);
        family_check(MPI_File_read_all_begin(fh, buf, n, MPI_BYTE), "MPI_File_read_all_begin");
        family_check(MPI_File_read_all_end(fh, buf, MPI_STATUS_IGNORE), "MPI_File_read_all_end");
    } else {
        family_seek_shared(fh, k, block);
        family_check(MPI_File_read_ordered_begin(fh, buf, n, MPI_BYTE),
                     "MPI_File_read_ordered_begin");
        family_check(MPI_File_read_ordered_end(fh, buf, MPI_STATUS_IGNORE),
                     "MPI_File_read_ordered_end");
    }
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_split_collective", 3, write_round, read_round};
    return family_main(argc, argv, &family);
}
