/* The workload the replay proxy runs (sim-models/WORKLOAD.md, with its replication
 * extensions keep_open and access_elements), loaded from YAML or JSON and checked as every
 * reader of the format checks it (formats/workload_check.h). */
#ifndef IOTWIN_REPLAY_WORKLOAD_H
#define IOTWIN_REPLAY_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/layout.h"
#include "workload_check.h"

typedef enum { MODE_SHARED, MODE_PER_RANK, MODE_GROUPS } file_mode;
typedef enum { API_HDF5, API_MPIIO } file_api;

typedef struct {
    dataset_spec spec;        /* writer w = rank w of the file's ranks */
    int collective;
} replay_dataset;

typedef struct {
    char *name;               /* may hold %r (rank) or %g (group) */
    char *role;
    file_mode mode;
    uint64_t groups;
    file_api api;
    int create;
    double compute_before_s;
    uint64_t flushes;
    int keep_open;
    replay_dataset *datasets;
    size_t ndatasets;
} replay_session;

typedef struct {
    char *name;
    uint64_t ranks;
    replay_session *sessions;
    size_t nsessions;
} replay_workload;

/* What loading a workload ends in besides 0: not a valid workload, or a valid one the proxy
 * cannot run (captured calls, datasets without a decomposition, api posix...). */
#define REPLAY_INVALID (-1)
#define REPLAY_UNSUPPORTED (-2)

/* 0, REPLAY_INVALID or REPLAY_UNSUPPORTED with a message naming the file and the key. */
int replay_workload_load(const char *path, replay_workload *w, char *err, size_t errlen);
/* Checks a workload file as the format's readers do and prints the verdict on `out` as a JSON
 * line (formats/workload_check.h); cannot-run: valid, but not something the proxy runs. */
wl_verdict replay_workload_verdict(const char *path, FILE *out);
void replay_workload_free(replay_workload *w);

/* Writers of one file of the session and this rank's writer index and file index. */
void replay_session_place(const replay_session *s, uint64_t ranks, uint64_t rank,
                          uint64_t *writers, uint64_t *writer, uint64_t *file_index);

#endif
