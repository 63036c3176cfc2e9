/* `--describe`: the workload of a run (sim-models/WORKLOAD.md) as one JSON document: the
 * datasets with their decompositions, one write per dataset in order, the run's sync as a
 * flush. A library's own objects and flushes are its model's in the simulator (`api`). */
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
    const char *api;      /* hdf5 | mpiio | netcdf4 | pnetcdf */
    uint64_t ranks;
    int independent;
    int sync;
} workload_run;

void workload_print(FILE *out, const workload_run *run, const layout *l);

#endif
