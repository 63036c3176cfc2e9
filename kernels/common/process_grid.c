#include "process_grid.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>

#include "decomposition.h"

int mpi_process_grid(uint64_t nodes, int ndims, uint64_t grid[], char *err, size_t errlen)
{
    int dims[DECOMP_MAX_DIMS] = {0}, initialized = 0;
    if (nodes > INT_MAX || ndims < 1 || ndims > DECOMP_MAX_DIMS) {
        snprintf(err, errlen, "%llu ranks over %d axes is beyond MPI_Dims_create",
                 (unsigned long long)nodes, ndims);
        return -1;
    }
    MPI_Initialized(&initialized);
    if (!initialized)
        MPI_Init(NULL, NULL);
    MPI_Dims_create((int)nodes, ndims, dims);
    if (!initialized)
        MPI_Finalize();
    for (int a = 0; a < ndims; a++)
        grid[a] = (uint64_t)dims[a];
    return 0;
}
