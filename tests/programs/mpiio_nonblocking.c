/* The nonblocking family: MPI_File_iwrite_at, _iwrite_at_all, _iwrite and _iwrite_all (after
 * MPI_File_seek) and _iwrite_shared (the ranks in turn, after MPI_File_seek_shared), each
 * waited for; read back with the matching MPI_File_iread calls (mpiio_family.h). */
#include "mpiio_family.h"

static void wait_for(MPI_Request request)
{
    family_check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
}

static void iwrite_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    (void)k;
    family_check(MPI_File_iwrite_shared(fh, buf, (int)block, MPI_BYTE, &request),
                 "MPI_File_iwrite_shared");
    wait_for(request);
}

static void iread_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    (void)k;
    family_check(MPI_File_iread_shared(fh, (char *)buf, (int)block, MPI_BYTE, &request),
                 "MPI_File_iread_shared");
    wait_for(request);
}

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    int n = (int)block, rc;
    if (k % 5 == 2 || k % 5 == 3)
        family_check(MPI_File_seek(fh, at, MPI_SEEK_SET), "MPI_File_seek");
    switch (k % 5) {
    case 0: rc = MPI_File_iwrite_at(fh, at, buf, n, MPI_BYTE, &request); break;
    case 1: rc = MPI_File_iwrite_at_all(fh, at, buf, n, MPI_BYTE, &request); break;
    case 2: rc = MPI_File_iwrite(fh, buf, n, MPI_BYTE, &request); break;
    case 3: rc = MPI_File_iwrite_all(fh, buf, n, MPI_BYTE, &request); break;
    default:
        family_check(MPI_File_seek_shared(fh, at - family_rank * block, MPI_SEEK_SET),
                     "MPI_File_seek_shared");
        family_in_turn(iwrite_shared, fh, k, buf, block);
        return;
    }
    family_check(rc, "a nonblocking write");
    wait_for(request);
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    int n = (int)block, rc;
    if (k % 5 == 2 || k % 5 == 3)
        family_check(MPI_File_seek(fh, at, MPI_SEEK_SET), "MPI_File_seek");
    switch (k % 5) {
    case 0: rc = MPI_File_iread_at(fh, at, buf, n, MPI_BYTE, &request); break;
    case 1: rc = MPI_File_iread_at_all(fh, at, buf, n, MPI_BYTE, &request); break;
    case 2: rc = MPI_File_iread(fh, buf, n, MPI_BYTE, &request); break;
    case 3: rc = MPI_File_iread_all(fh, buf, n, MPI_BYTE, &request); break;
    default:
        family_check(MPI_File_seek_shared(fh, at - family_rank * block, MPI_SEEK_SET),
                     "MPI_File_seek_shared");
        family_in_turn(iread_shared, fh, k, buf, block);
        return;
    }
    family_check(rc, "a nonblocking read");
    wait_for(request);
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_nonblocking", 5, write_round, read_round};
    return family_main(argc, argv, &family);
}
