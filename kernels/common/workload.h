/* `--describe`: the workload of a run (sim-models/WORKLOAD.md) as one JSON document. A layout
 * whose datasets are all written, and flushed only by the run's sync, is described with its
 * decompositions, one write per dataset in order; any other (netCDF-4's: dimension datasets
 * never written, flushes of its own) as the session of `calls` the run makes: the datasets by
 * their extents, the library's flush at define, a write per written dataset with its
 * decomposition as the selection, the run's sync, the library's flush at close. */
#ifndef IOTWIN_WORKLOAD_H
#define IOTWIN_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "layout.h"

typedef struct {
    const char *kernel;
    const char *source;   /* the command line, for provenance */
    const char *file;
    const char *role;     /* checkpoint | visualisation | other */
    const char *api;      /* hdf5 | mpiio */
    uint64_t ranks;
    int independent;
    int sync;
} workload_run;

void workload_print(FILE *out, const workload_run *run, const layout *l);

#endif
