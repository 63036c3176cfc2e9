/* The process grid MPI_Dims_create gives, asked of the MPI library the kernel is built on, also
 * when the kernel only describes a run: MPICH and Open MPI choose differently (720 ranks over
 * three axes: 10x9x8 under Debian's MPICH 4.0, 12x10x6 under its Open MPI 4.1, which is
 * decomp_grid_create's choice), so a description computed without MPI would hold for one
 * flavour only. Outside a run MPI is started as a singleton for this one call. */
#ifndef IOTWIN_PROCESS_GRID_H
#define IOTWIN_PROCESS_GRID_H

#include <stddef.h>
#include <stdint.h>

/* grid[0..ndims) as MPI_Dims_create(nodes, ndims) fills it (non-increasing); -1 with err when
 * nodes is beyond MPI's int. */
int mpi_process_grid(uint64_t nodes, int ndims, uint64_t grid[], char *err, size_t errlen);

#endif
