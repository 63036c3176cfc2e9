/* The library's state that every layer shares: the config (loaded once, at the first hooked
 * call of any layer), where the report goes, the clock and the settings a file or dataset gets.
 * The layers (hdf5/, mpiio/, lustre/) hook their calls and call in here. */
#pragma once
#include "core/config.h"
#include "core/report.h"

struct iot_runtime {
    int ready;
    struct iot_config *config;   /* NULL: no config, or a rejected one */
    char error[1024];
    struct iot_run run;
};

extern struct iot_runtime iot_rt;

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

/* Each layer's clean-up at unload (before the records go). */
void iot_hdf5_shutdown(void);
