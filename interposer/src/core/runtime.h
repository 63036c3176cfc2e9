/* The library's state that every layer shares: the config (loaded once, at the first hooked
 * call of any layer), where the report goes, the clock and the settings a file or dataset gets.
 * The layers (core/layer.h) hook their calls and call in here. */
#pragma once
#include "core/config.h"
#include "core/records.h"
#include "core/report.h"

struct iot_runtime {
    int ready;
    struct iot_config *config;   /* NULL: no config, or a rejected one */
    char error[1024];
    struct iot_run run;
};

extern struct iot_runtime iot_rt;

/* Hooked calls in progress, in any layer: the MPI and POSIX calls made inside one are the I/O
 * library's own (HDF5's MPI-IO calls, ROMIO's writes), not the program's. Per thread: a
 * program's threads wait on MPI requests at once (MPI_Wait is hooked, mpiio/calls.h). */
extern __thread int iot_depth;

/* Reads IOTWIN_CONFIG, IOTWIN_REPORT and IOTWIN_CAPTURE once. */
void iot_runtime_init(void);
/* This process's rank in MPI_COMM_WORLD (PMI_RANK before MPI_Init / after MPI_Finalize). */
int iot_world_rank(void);
/* CLOCK_MONOTONIC in seconds: durations inside the hooks. */
double iot_now(void);
/* The settings of the config that apply to a file (and a dataset, or NULL), with the labels
 * of the blocks that applied; nothing without a config. */
void iot_settings_for(struct iot_settings *settings, char *matched, const char *file,
                      const char *dataset);
/* A dataset's settings (and labels), shared with the other datasets the same blocks apply
 * to; valid until iot_resolved_free. */
const struct iot_resolved *iot_resolved_for(const char *file, const char *dataset);
void iot_resolved_free(void);

/* The run's record (core/run.c) at exit, if MPI_Finalize did not write it. */
void iot_run_end_at_exit(void);

