/* VORPAL-IO: the field dumps of the VORPAL plasma code as H5Block writes them. The global 3D grid
 * is the union of one block per rank on a process grid; each component of the field is one 3D
 * dataset /Step#t/Block/E/<component> in one shared file. Datasets are (z, y, x) with x varying
 * fastest, as H5Block stores its (k, j, i) views. */
#include <stdio.h>
#include <stdlib.h>

#include "common/kernel.h"

#define AXES 3

static uint64_t block_xyz[AXES] = {100, 100, 60};
static uint64_t procs_xyz[AXES] = {0, 0, 0}; /* 0: chosen as MPI_Dims_create would */
static uint64_t components = 3;
static uint64_t steps = 1;
static int uneven = 0;

static const kernel_option options[] = {
    {"block", OPT_DIMS, block_xyz, 0, AXES, "block per rank, XxYxZ (default and paper 100x100x60)",
     "block"},
    {"procs", OPT_DIMS, procs_xyz, 0, AXES,
     "process grid XxYxZ, product = ranks (default: as MPI_Dims_create, largest factor on z)",
     NULL},
    {"components", OPT_COUNT, &components, 0, 0, "field components (default 3)", "components"},
    {"steps", OPT_COUNT, &steps, 0, 0, "time steps in the file (default 1; paper runs 20)",
     "steps"},
    {"uneven", OPT_SWITCH, &uneven, 1, 0,
     "non-uniform blocks (H5Block): along each axis the block extents cycle through 3/4, 1 and "
     "5/4 of --block",
     "uneven"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* The process grid in dataset axis order (z, y, x). */
static int process_grid(uint64_t ranks, uint64_t grid[AXES], char *err, size_t errlen)
{
    if (procs_xyz[0] == 0)
        return decomp_grid_create(ranks, AXES, grid);
    for (int a = 0; a < AXES; a++)
        grid[a] = procs_xyz[AXES - 1 - a];
    if (grid[0] * grid[1] * grid[2] == ranks)
        return 0;
    snprintf(err, errlen, "--procs %llux%llux%llu makes %llu processes, the run has %llu ranks",
             (unsigned long long)procs_xyz[0], (unsigned long long)procs_xyz[1],
             (unsigned long long)procs_xyz[2], (unsigned long long)(grid[0] * grid[1] * grid[2]),
             (unsigned long long)ranks);
    return -1;
}

static uint64_t uneven_extent(uint64_t block, uint64_t slot)
{
    uint64_t extent = block * (3 + slot % 3) / 4;
    return extent ? extent : 1;
}

static int init_field(decomposition *d, const uint64_t grid[AXES])
{
    uint64_t block[AXES];
    for (int a = 0; a < AXES; a++)
        block[a] = block_xyz[AXES - 1 - a];
    if (!uneven)
        return decomp_init_uniform(d, AXES, grid, block);
    uint64_t *extents[AXES] = {NULL, NULL, NULL};
    int status = 0;
    for (int a = 0; a < AXES && !status; a++) {
        extents[a] = malloc(grid[a] * sizeof(uint64_t));
        status = extents[a] ? 0 : -1;
        for (uint64_t s = 0; !status && s < grid[a]; s++)
            extents[a][s] = uneven_extent(block[a], s);
    }
    if (!status)
        status = decomp_init_listed(d, AXES, grid, (const uint64_t *const *)extents);
    for (int a = 0; a < AXES; a++)
        free(extents[a]);
    return status;
}

static int lay_out(const run_shape *shape, layout *out, char *err, size_t errlen)
{
    uint64_t grid[AXES];
    if (process_grid(shape->ranks, grid, err, errlen))
        return -1;
    for (uint64_t t = 0; t < steps; t++)
        for (uint64_t c = 0; c < components; c++) {
            dataset_spec *d = layout_add(out, ELEM_FLOAT64, "/Step#%llu/Block/E/%llu",
                                         (unsigned long long)t, (unsigned long long)c);
            if (!d || init_field(&d->decomp, grid))
                return -1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    const kernel_def vorpal = {
        "vorpal-io",
        "VORPAL-IO: a 3-component field (float64) on a 3D block-structured grid, one block per\n"
        "rank, written as H5Block does: /Step#t/Block/E/<component>, dims (z, y, x).",
        "visualisation", options, lay_out, NULL,
    };
    return kernel_main(argc, argv, &vorpal);
}
