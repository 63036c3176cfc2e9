/* Counts a process's calls of the MPI functions that synchronise ranks (collectives, and
 * MPI_Comm_dup, which is one) for bench/interposer_overhead.py: preloaded before the
 * interposer, it sees the program's, HDF5's and the interposer's calls alike. Each is counted
 * in all and, apart, when made inside a file session: from the entry of an MPI_File_open to
 * the return of the matching MPI_File_close, whoever calls them (the interposer's work inside
 * its open and close hooks is inside). At MPI_Finalize, after the next MPI_Finalize returns
 * (the interposer's, which reduces the report over the ranks), each rank appends one JSON line
 * to $MPI_CALL_COUNT ({"rank": r, "MPI_Allreduce": n, ..., "MPI_Allreduce in a file
 * session": n, ...}). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "next_symbol.h"

enum { DUP, BARRIER, BCAST, REDUCE, ALLREDUCE, IALLREDUCE, GATHER, GATHERV, ALLGATHER,
       REDUCE_SCATTER_BLOCK, ALLTOALL, NCALLS };
static const char *NAMES[NCALLS] = {"MPI_Comm_dup", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce",
                                    "MPI_Allreduce", "MPI_Iallreduce", "MPI_Gather",
                                    "MPI_Gatherv", "MPI_Allgather", "MPI_Reduce_scatter_block",
                                    "MPI_Alltoall"};
static long calls[NCALLS], in_session[NCALLS];
static int open_files;   /* files opened and not yet closed, and opens in progress */
#define IN_SESSION " in a file session"

#define FORWARD(name, index, params, args) \
    int name params \
    { \
        calls[index]++; \
        in_session[index] += open_files > 0; \
        return NEXT_SYMBOL(name) args; \
    }

FORWARD(MPI_Comm_dup, DUP, (MPI_Comm c, MPI_Comm *o), (c, o))
FORWARD(MPI_Barrier, BARRIER, (MPI_Comm c), (c))
FORWARD(MPI_Bcast, BCAST, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c),
        (b, n, t, root, c))
FORWARD(MPI_Reduce, REDUCE, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root,
                             MPI_Comm c), (s, r, n, t, op, root, c))
FORWARD(MPI_Allreduce, ALLREDUCE, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                                   MPI_Comm c), (s, r, n, t, op, c))
FORWARD(MPI_Iallreduce, IALLREDUCE, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                                     MPI_Comm c, MPI_Request *q), (s, r, n, t, op, c, q))
FORWARD(MPI_Gather, GATHER, (const void *s, int sn, MPI_Datatype st, void *r, int rn,
                             MPI_Datatype rt, int root, MPI_Comm c),
        (s, sn, st, r, rn, rt, root, c))
FORWARD(MPI_Gatherv, GATHERV, (const void *s, int sn, MPI_Datatype st, void *r, const int *rn,
                               const int *d, MPI_Datatype rt, int root, MPI_Comm c),
        (s, sn, st, r, rn, d, rt, root, c))
FORWARD(MPI_Allgather, ALLGATHER, (const void *s, int sn, MPI_Datatype st, void *r, int rn,
                                   MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c))
FORWARD(MPI_Reduce_scatter_block, REDUCE_SCATTER_BLOCK, (const void *s, void *r, int n,
                                                         MPI_Datatype t, MPI_Op op, MPI_Comm c),
        (s, r, n, t, op, c))
FORWARD(MPI_Alltoall, ALLTOALL, (const void *s, int sn, MPI_Datatype st, void *r, int rn,
                                 MPI_Datatype rt, MPI_Comm c), (s, sn, st, r, rn, rt, c))

int MPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    open_files++;
    int rc = NEXT_SYMBOL(MPI_File_open)(c, name, amode, info, fh);
    open_files -= rc != MPI_SUCCESS;
    return rc;
}

int MPI_File_close(MPI_File *fh)
{
    int rc = NEXT_SYMBOL(MPI_File_close)(fh);
    open_files--;
    return rc;
}

int MPI_Finalize(void)
{
    const char *path = getenv("MPI_CALL_COUNT");
    char line[4096];
    int rank = 0, n = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = NEXT_SYMBOL(MPI_Finalize)();
    n = snprintf(line, sizeof line, "{\"rank\": %d", rank);
    for (int i = 0; i < NCALLS; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, ", \"%s\": %ld", NAMES[i], calls[i]);
    for (int i = 0; i < NCALLS; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, ", \"%s%s\": %ld", NAMES[i],
                      IN_SESSION, in_session[i]);
    n += snprintf(line + n, sizeof line - (size_t)n, "}\n");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n)
            fprintf(stderr, "mpi_call_count: could not write %s\n", path);
        close(fd);
    }
    return rc;
}
