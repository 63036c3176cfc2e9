/* How a run's layout reaches its file: the library a kernel writes through (HDF5, bare MPI-IO,
 * netCDF-4), as the four timed phases open, write, sync and close. Every function is
 * collective over the communicator the file was opened on, and on failure returns -1 with a
 * message naming the file or dataset. */
#ifndef IOTWIN_OUTPUT_H
#define IOTWIN_OUTPUT_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "held_blocks.h"
#include "layout.h"

typedef struct {
    /* 1: write() takes the blocks the rank holds (held_blocks.h), made before the timed
     * phases; 0: write() makes each block's values itself, inside the timed write (the HDF5
     * output of the kernels without --method, as they have always been measured). */
    int holds_blocks;
    int (*open)(void **file, const char *path, MPI_Comm comm, int independent, char *err,
                size_t errlen);
    /* Creates every dataset of the layout and writes this rank's block of each, in order. */
    int (*write)(void *file, const layout *l, const held_blocks *held, char *err,
                 size_t errlen);
    int (*sync)(void *file, char *err, size_t errlen);
    int (*close)(void *file, char *err, size_t errlen); /* frees the file */
    /* JSON members for the report's params (the library's version), or NULL. */
    const char *(*params)(void);
} output_ops;

/* A way a kernel can write its layout (--method). */
typedef struct {
    const char *name;       /* the --method value */
    const char *api;        /* the workload format's api (sim-models/WORKLOAD.md) */
    const char *suffix;     /* the default file is KERNEL<suffix> */
    const output_ops *ops;  /* NULL: not in this build of the kernel */
    const char *missing;    /* why ops is NULL (one sentence) */
} output_method;

/* HDF5 through its MPI-IO driver (h5output.h): values made in the write, or held. */
extern const output_ops h5_output_ops;
extern const output_ops h5_held_output_ops;
/* Bare MPI-IO (mpiio_output.c). */
extern const output_ops mpiio_output_ops;
/* Parallel netCDF-4 (nc4_output.c); NULL in a build without it, which says why: */
const output_ops *nc4_output_ops(void);
#define NC4_OUTPUT_MISSING                                                                     \
    "this build has no parallel netCDF-4: Debian's libnetcdf-mpi-dev is built on Open MPI, "  \
    "so only the Open MPI build of the kernels has it (build/openmpi/kernels/; under iotwin, " \
    "IOTWIN_MPI=openmpi), where that package is installed"

#endif
