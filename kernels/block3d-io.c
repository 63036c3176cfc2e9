/* BLOCK3D-IO: the most common checkpoint of a stencil code. Each rank owns one block of a 3-D
 * global array of doubles on the process grid MPI_Dims_create(ranks, 3) gives, holds it in
 * memory with a halo of ghost cells, and all ranks write the whole array into one shared file
 * in one collective write, the halo skipped by a memory selection, not a copy (except under
 * netCDF-4, which has none: nc4_output.c; PnetCDF's flexible API takes one).
 *
 * The array is stored in Fortran order, x fastest: the dataset is (z, y, x). As a Fortran code
 * does, the process grid's first (largest) factor goes along x, the last along z; rank r owns
 * the block at grid coordinates (z, y, x) = unravel(r) with x fastest, so that the workload
 * format's {grid, block} (writer w at row-major coordinates) states the run exactly. */
#include <stdio.h>

#include "common/kernel.h"
#include "common/pnetcdf_output.h"
#include "common/process_grid.h"

#define AXES 3

static uint64_t block_xyz[AXES] = {128, 128, 128};
static uint64_t halo = 2;

static const kernel_option options[] = {
    {"block", OPT_DIMS, block_xyz, 0, AXES,
     "block per rank, XxYxZ or N for NxNxN (default 128)", "block"},
    {"halo", OPT_LEVEL, &halo, 0, 0, "ghost cells around the block in memory (default 2)",
     "halo"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static int lay_out(const run_shape *shape, layout *out, char *err, size_t errlen)
{
    uint64_t factors[AXES], grid[AXES], block[AXES];
    if (mpi_process_grid(shape->ranks, AXES, factors, err, errlen))
        return -1;
    for (int a = 0; a < AXES; a++) { /* dataset axes (z, y, x) */
        grid[a] = factors[AXES - 1 - a];
        block[a] = block_xyz[AXES - 1 - a];
    }
    dataset_spec *d = layout_add(out, ELEM_FLOAT64, "/data");
    if (!d || decomp_init_uniform(&d->decomp, AXES, grid, block))
        return -1;
    d->halo = halo;
    return 0;
}

int main(int argc, char **argv)
{
    const output_method methods[] = {
        {"hdf5", "hdf5", ".h5", &h5_held_output_ops, NULL},
        {"mpiio", "mpiio", ".dat", &mpiio_output_ops, NULL},
        {"netcdf4", "netcdf4", ".nc", nc4_output_ops(), NC4_OUTPUT_MISSING},
        {"pnetcdf", "pnetcdf", ".nc", pnetcdf_output_ops(), PNETCDF_OUTPUT_MISSING},
        {NULL, NULL, NULL, NULL, NULL},
    };
    const kernel_def block3d = {
        "block3d-io",
        "BLOCK3D-IO: a 3-D global array of doubles, one block per rank on the process grid of\n"
        "MPI_Dims_create (largest factor along x), held with a halo in memory, written in one\n"
        "collective call into one shared file in Fortran order (x fastest): dataset /data of\n"
        "dims (z, y, x), through HDF5, bare MPI-IO (a subarray file view), netCDF-4 or\n"
        "PnetCDF (a CDF-5 file).",
        "checkpoint", options, lay_out, methods,
    };
    return kernel_main(argc, argv, &block3d);
}
