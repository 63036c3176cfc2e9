/* MPI-4's large-count family (MPI_Count counts, the `_c` calls IOR's MPI-IO back end makes
 * under MPICH 4): every `_c` write in turn, explicit offsets, the individual file pointer
 * (after MPI_File_seek), the shared one (the ranks in turn, or in rank order, after
 * MPI_File_seek_shared), blocking, nonblocking and split; read back with the `_c` reads
 * (mpiio_family.h). */
#include "mpiio_family.h"

#define CALLS 14

static void write_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    if (k % CALLS == 10)
        family_check(MPI_File_write_shared_c(fh, buf, block, MPI_BYTE, MPI_STATUS_IGNORE),
                     "MPI_File_write_shared_c");
    else
        family_wait(MPI_File_iwrite_shared_c(fh, buf, block, MPI_BYTE, &request), &request,
                    "MPI_File_iwrite_shared_c");
}

/* Where the call of round k writes from: its offset, the individual or the shared pointer. */
static void position(MPI_File fh, int k, long long block)
{
    if (k % CALLS >= 5 && k % CALLS <= 9)
        family_seek(fh, k, block);
    else if (k % CALLS >= 10)
        family_seek_shared(fh, k, block);
}

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    MPI_Status *none = MPI_STATUS_IGNORE;
    position(fh, k, block);
    switch (k % CALLS) {
    case 0: family_check(MPI_File_write_at_c(fh, at, buf, block, MPI_BYTE, none), "write_at_c");
            break;
    case 1: family_check(MPI_File_write_at_all_c(fh, at, buf, block, MPI_BYTE, none),
                         "write_at_all_c");
            break;
    case 2: family_wait(MPI_File_iwrite_at_c(fh, at, buf, block, MPI_BYTE, &request), &request,
                         "iwrite_at_c");
            break;
    case 3: family_wait(MPI_File_iwrite_at_all_c(fh, at, buf, block, MPI_BYTE, &request), &request,
                         "iwrite_at_all_c");
            break;
    case 4: family_check(MPI_File_write_at_all_begin_c(fh, at, buf, block, MPI_BYTE),
                         "write_at_all_begin_c");
            family_check(MPI_File_write_at_all_end(fh, buf, none), "write_at_all_end");
            break;
    case 5: family_check(MPI_File_write_c(fh, buf, block, MPI_BYTE, none), "write_c");
            break;
    case 6: family_check(MPI_File_write_all_c(fh, buf, block, MPI_BYTE, none), "write_all_c");
            break;
    case 7: family_wait(MPI_File_iwrite_c(fh, buf, block, MPI_BYTE, &request), &request,
                         "iwrite_c");
            break;
    case 8: family_wait(MPI_File_iwrite_all_c(fh, buf, block, MPI_BYTE, &request), &request,
                         "iwrite_all_c");
            break;
    case 9: family_check(MPI_File_write_all_begin_c(fh, buf, block, MPI_BYTE),
                         "write_all_begin_c");
            family_check(MPI_File_write_all_end(fh, buf, none), "write_all_end");
            break;
    case 10:
    case 11: family_in_turn(write_shared, fh, k, buf, block);
             break;
    case 12: family_check(MPI_File_write_ordered_c(fh, buf, block, MPI_BYTE, none),
                          "write_ordered_c");
             break;
    default: family_check(MPI_File_write_ordered_begin_c(fh, buf, block, MPI_BYTE),
                          "write_ordered_begin_c");
             family_check(MPI_File_write_ordered_end(fh, buf, none), "write_ordered_end");
    }
}

static void read_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    if (k % CALLS == 10)
        family_check(MPI_File_read_shared_c(fh, (char *)buf, block, MPI_BYTE,
                                            MPI_STATUS_IGNORE), "MPI_File_read_shared_c");
    else
        family_wait(MPI_File_iread_shared_c(fh, (char *)buf, block, MPI_BYTE, &request),
                    &request, "MPI_File_iread_shared_c");
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    MPI_Status *none = MPI_STATUS_IGNORE;
    position(fh, k, block);
    switch (k % CALLS) {
    case 0: family_check(MPI_File_read_at_c(fh, at, buf, block, MPI_BYTE, none), "read_at_c");
            break;
    case 1: family_check(MPI_File_read_at_all_c(fh, at, buf, block, MPI_BYTE, none),
                         "read_at_all_c");
            break;
    case 2: family_wait(MPI_File_iread_at_c(fh, at, buf, block, MPI_BYTE, &request), &request,
                         "iread_at_c");
            break;
    case 3: family_wait(MPI_File_iread_at_all_c(fh, at, buf, block, MPI_BYTE, &request), &request,
                         "iread_at_all_c");
            break;
    case 4: family_check(MPI_File_read_at_all_begin_c(fh, at, buf, block, MPI_BYTE),
                         "read_at_all_begin_c");
            family_check(MPI_File_read_at_all_end(fh, buf, none), "read_at_all_end");
            break;
    case 5: family_check(MPI_File_read_c(fh, buf, block, MPI_BYTE, none), "read_c");
            break;
    case 6: family_check(MPI_File_read_all_c(fh, buf, block, MPI_BYTE, none), "read_all_c");
            break;
    case 7: family_wait(MPI_File_iread_c(fh, buf, block, MPI_BYTE, &request), &request,
                         "iread_c");
            break;
    case 8: family_wait(MPI_File_iread_all_c(fh, buf, block, MPI_BYTE, &request), &request,
                         "iread_all_c");
            break;
    case 9: family_check(MPI_File_read_all_begin_c(fh, buf, block, MPI_BYTE),
                         "read_all_begin_c");
            family_check(MPI_File_read_all_end(fh, buf, none), "read_all_end");
            break;
    case 10:
    case 11: family_in_turn(read_shared, fh, k, buf, block);
             break;
    case 12: family_check(MPI_File_read_ordered_c(fh, buf, block, MPI_BYTE, none),
                          "read_ordered_c");
             break;
    default: family_check(MPI_File_read_ordered_begin_c(fh, buf, block, MPI_BYTE),
                          "read_ordered_begin_c");
             family_check(MPI_File_read_ordered_end(fh, buf, none), "read_ordered_end");
    }
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_large_count", CALLS, write_round, read_round};
    return family_main(argc, argv, &family);
}
