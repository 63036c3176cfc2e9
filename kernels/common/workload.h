/* `--describe`: the workload of a run (sim-models/WORKLOAD.md) as one JSON document. */
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
    uint64_t ranks;
    int independent;
    int sync;
} workload_run;

void workload_print(FILE *out, const workload_run *run, const layout *l);

#endif
