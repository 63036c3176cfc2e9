/* Files opened by different groups of processes, for the report's reduction at MPI_Finalize
 * (tests/interposer/test_interposer_fixed_cost.py). On 3 ranks or more:
 *   DIR/world.0  on MPI_COMM_WORLD;
 *   DIR/first    on rank 0 alone (its own communicator of one process);
 *   DIR/rest     on the other ranks together (their communicator's rank 0 is world rank 1);
 *   DIR/rest     again, a second session of the same name on the same group;
 *   DIR/world.1  on a duplicate of MPI_COMM_WORLD.
 * In each session every rank writes rank + 1 KiB at its own offset.
 *   group_files DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char block[64 * 1024];

static void session(MPI_Comm comm, const char *dir, const char *name, int world_rank)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)
        != MPI_SUCCESS) {
        fprintf(stderr, "group_files: cannot create %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int bytes = (world_rank + 1) * 1024;
    MPI_File_write_at(fh, (MPI_Offset)world_rank * (MPI_Offset)sizeof block, block, bytes,
                      MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc != 2 || ranks < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: group_files DIR (on 3 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(block, 'g', sizeof block);
    MPI_Comm part, again;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &part);
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    session(MPI_COMM_WORLD, argv[1], "world.0", rank);
    session(part, argv[1], rank == 0 ? "first" : "rest", rank);
    if (rank != 0)
        session(part, argv[1], "rest", rank);
    session(again, argv[1], "world.1", rank);
    MPI_Comm_free(&part);
    MPI_Comm_free(&again);
    MPI_Finalize();
    return 0;
}
