/* How a dataset is split among its writers: one block per writer on a grid of blocks.
 *
 * Writer w sits at grid coordinates unravel(w) in row-major order (the last axis varies
 * fastest). Along each axis the blocks have their own extents, uniform or not; the dataset's
 * extent along an axis is the sum of its block extents. This one definition serves the
 * kernels (which hyperslab each rank writes) and the simulator (which bytes each rank sends),
 * so the two cannot disagree.
 */
#ifndef IOTWIN_DECOMPOSITION_H
#define IOTWIN_DECOMPOSITION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DECOMP_MAX_DIMS 4

typedef struct {
    int ndims;
    uint64_t grid[DECOMP_MAX_DIMS];     /* writers along each axis */
    uint64_t *extent[DECOMP_MAX_DIMS];  /* block extent of each grid slot, grid[a] entries */
    uint64_t *start[DECOMP_MAX_DIMS];   /* first index of each grid slot (prefix sums) */
} decomposition;

/* Every block has extent block[a] along axis a. */
int decomp_init_uniform(decomposition *d, int ndims, const uint64_t grid[], const uint64_t block[]);
/* dims[a] split as evenly as possible over grid[a] slots; the first slots take the remainder. */
int decomp_init_balanced(decomposition *d, int ndims, const uint64_t grid[], const uint64_t dims[]);
/* extents[a] lists the grid[a] block extents along axis a. */
int decomp_init_listed(decomposition *d, int ndims, const uint64_t grid[],
                       const uint64_t *const extents[]);
void decomp_free(decomposition *d);

/* A process grid for nwriters writers over ndims axes, as MPI_Dims_create chooses one: the
 * factors as close to each other as the prime factorisation allows, in non-increasing order.
 * Computed without MPI so that a run of any size can be described. */
int decomp_grid_create(uint64_t nwriters, int ndims, uint64_t grid[]);

uint64_t decomp_writers(const decomposition *d);
void decomp_dims(const decomposition *d, uint64_t dims[]);
void decomp_block(const decomposition *d, uint64_t writer, uint64_t start[], uint64_t count[]);
uint64_t decomp_block_elements(const decomposition *d, uint64_t writer);

#ifdef __cplusplus
}
#endif

#endif
