/* What every kernel does around its data layout: options, --help, --describe, the timed
 * open / write / sync / close phases, and the JSON line. A kernel file supplies only its own
 * options, a function that lays out its datasets for a number of ranks and, if it can write
 * through more than HDF5, its methods (output.h). */
#ifndef IOTWIN_KERNEL_H
#define IOTWIN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "options.h"
#include "output.h"

typedef struct {
    uint64_t ranks;
    int independent;
} run_shape;

typedef struct {
    const char *name;
    const char *summary;          /* one paragraph for --help */
    const char *role;             /* the file's role in the workload (WORKLOAD.md) */
    const kernel_option *options; /* terminated by an entry with name NULL */
    /* Appends the run's datasets to `out`; returns 0, or -1 with err naming the bad option
     * (err left empty: out of memory). */
    int (*lay_out)(const run_shape *shape, layout *out, char *err, size_t errlen);
    /* The --method choices, the first the default, ended by an entry with name NULL; NULL:
     * HDF5 alone, no --method (each block's values made inside the timed write). */
    const output_method *methods;
} kernel_def;

int kernel_main(int argc, char **argv, const kernel_def *k);

#endif
