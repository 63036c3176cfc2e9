/* The nonblocking family: MPI_File_iwrite_at, _iwrite_at_all, _iwrite and _iwrite_all (after
 * MPI_File_seek) and _iwrite_shared (the ranks in turn, after MPI_File_seek_shared), each
 * waited for; read back with the matching MPI_File_iread calls (mpiio_family.h). */
#include "mpiio_family.h"

#define CALLS 5

static void iwrite_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    (void)k;
    family_wait(MPI_File_iwrite_shared(fh, buf, (int)block, MPI_BYTE, &request), &request,
                "MPI_File_iwrite_shared");
}

static void iread_shared(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Request request;
    (void)k;
    family_wait(MPI_File_iread_shared(fh, (char *)buf, (int)block, MPI_BYTE, &request),
                &request, "MPI_File_iread_shared");
}

/* Where round k's call starts from: its offset, the individual or the shared file pointer. */
static void position(MPI_File fh, int k, long long block)
{
    if (k % CALLS == 2 || k % CALLS == 3)
        family_seek(fh, k, block);
    else if (k % CALLS == 4)
        family_seek_shared(fh, k, block);
}

static void write_round(MPI_File fh, int k, const char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    int n = (int)block, rc = MPI_SUCCESS;
    position(fh, k, block);
    switch (k % CALLS) {
    case 0: rc = MPI_File_iwrite_at(fh, at, buf, n, MPI_BYTE, &request); break;
    case 1: rc = MPI_File_iwrite_at_all(fh, at, buf, n, MPI_BYTE, &request); break;
    case 2: rc = MPI_File_iwrite(fh, buf, n, MPI_BYTE, &request); break;
    case 3: rc = MPI_File_iwrite_all(fh, buf, n, MPI_BYTE, &request); break;
    default: family_in_turn(iwrite_shared, fh, k, buf, block); return;
    }
    family_wait(rc, &request, "a nonblocking write");
}

static void read_round(MPI_File fh, int k, char *buf, long long block)
{
    MPI_Offset at = family_offset(k, block);
    MPI_Request request;
    int n = (int)block, rc = MPI_SUCCESS;
    position(fh, k, block);
    switch (k % CALLS) {
    case 0: rc = MPI_File_iread_at(fh, at, buf, n, MPI_BYTE, &request); break;
    case 1: rc = MPI_File_iread_at_all(fh, at, buf, n, MPI_BYTE, &request); break;
    case 2: rc = MPI_File_iread(fh, buf, n, MPI_BYTE, &request); break;
    case 3: rc = MPI_File_iread_all(fh, buf, n, MPI_BYTE, &request); break;
    default: family_in_turn(iread_shared, fh, k, buf, block); return;
    }
    family_wait(rc, &request, "a nonblocking read");
}

int main(int argc, char **argv)
{
    static const struct family family = {"mpiio_nonblocking", CALLS, write_round, read_round};
    return family_main(argc, argv, &family);
}
