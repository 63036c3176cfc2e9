#include "session_times.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void session_times_print(double seconds, const double *took, int files, long long bytes)
{
    int rank;
    double slowest = 0, *slowest_took = calloc((size_t)files, sizeof *slowest_took);
    if (!slowest_took)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(took, slowest_took, files, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("{\"total_s\": %.6f, \"rate_mbs\": %.3f, \"files\": %d, \"bytes\": %lld, "
               "\"sessions_s\": [", slowest, bytes / 1e6 / slowest, files, bytes);
        for (int f = 0; f < files; f++)
            printf("%s%.6f", f ? ", " : "", slowest_took[f]);
        printf("]}\n");
    }
    free(slowest_took);
}
