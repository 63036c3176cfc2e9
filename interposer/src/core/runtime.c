#define _GNU_SOURCE
#include "core/runtime.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/keys.h"
#include "core/layer.h"
#include "core/readbacks.h"
#include "core/records.h"

struct iot_runtime iot_rt;
__thread int iot_depth;

int iot_world_rank(void)
{
    int initialized = 0, finalized = 0, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank;
    }
    const char *pmi = getenv("PMI_RANK");
    return pmi ? atoi(pmi) : 0;
}

double iot_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void load_config(void)
{
    struct iot_run *run = &iot_rt.run;
    run->config_path = getenv("IOTWIN_CONFIG");
    if (!run->config_path || !*run->config_path) {
        run->config_path = NULL;
        return;
    }
    if (iot_config_load(run->config_path, &iot_rt.config, iot_rt.error, sizeof iot_rt.error) == 0)
        return;
    iot_rt.config = NULL;
    run->config_error = iot_rt.error;
    if (iot_world_rank() == 0)
        fprintf(stderr, "iotwin: %s (the application runs without the config)\n", iot_rt.error);
}

void iot_runtime_init(void)
{
    if (iot_rt.ready)
        return;
    iot_rt.ready = 1;
    const char *report = getenv("IOTWIN_REPORT");
    iot_rt.run.report_path = report && *report ? report : NULL;
    load_config();
    for (int i = 0; i < iot_layer_count(); i++)
        if (iot_layer_at(i)->init)
            iot_layer_at(i)->init();
}

void iot_settings_for(struct iot_settings *settings, char *matched, const char *file,
                      const char *dataset)
{
    if (iot_rt.config)
        iot_resolve(iot_rt.config, file, dataset, settings, matched, IOT_MATCHED_LEN);
}

/* Resolving a dataset's settings merges every applying block's keys; its labels alone are
 * cheap and name them: datasets share one copy per distinct labels. */
static struct iot_resolved **known;
static int nknown;

const struct iot_resolved *iot_resolved_for(const char *file, const char *dataset)
{
    static const struct iot_resolved nothing = {.exact = 1};   /* no config: nothing applies */
    char matched[IOT_MATCHED_LEN];
    if (!iot_rt.config)
        return &nothing;
    iot_resolve(iot_rt.config, file, dataset, NULL, matched, sizeof matched);
    for (int i = nknown - 1; i >= 0; i--)
        if (known[i]->exact && strcmp(known[i]->matched, matched) == 0)
            return known[i];
    struct iot_resolved *fresh = calloc(1, sizeof *fresh);
    struct iot_resolved **more = realloc(known, (size_t)(nknown + 1) * sizeof *known);
    if (!fresh || !more) {
        free(fresh);
        known = more ? more : known;
        return &nothing;
    }
    known = more;
    iot_resolve(iot_rt.config, file, dataset, &fresh->settings, fresh->matched,
                sizeof fresh->matched);
    fresh->exact = strlen(fresh->matched) + 1 < sizeof fresh->matched;
    return known[nknown++] = fresh;
}

void iot_resolved_free(void)
{
    for (int i = 0; i < nknown; i++) {
        iot_settings_clear(&known[i]->settings);
        free(known[i]);
    }
    free(known);
    known = NULL;
    nknown = 0;
}

void iot_not_applying(struct iot_file *file)
{
    char key[64], reason[160];
    for (int id = 0; id < IOT_NKEYS; id++) {
        int block = IOT_KEYS[id].block;
        if (!file->settings.v[id].set || IOT_KEYS[id].parent >= 0 || block < 0
            || (1u << block) & file->layer->blocks)
            continue;
        iot_key_path(id, key, sizeof key);
        snprintf(reason, sizeof reason, "the file is written through %s: no %s setting acts "
                 "on it", file->layer->api, IOT_BLOCK_NAMES[block]);
        iot_not_effective(&file->not_effective, key, NULL, NULL, reason);
    }
}

__attribute__((destructor)) static void shutdown_interposer(void)
{
    int finalized = 0;
    if (iot_rt.ready)
        iot_run_end_at_exit();
    MPI_Finalized(&finalized);
    for (int i = 0; i < iot_layer_count(); i++)
        if (iot_layer_at(i)->shutdown)
            iot_layer_at(i)->shutdown();
    if (!finalized)   /* after MPI_Finalize, communicators of unclosed files cannot be freed */
        iot_records_free_all();
    iot_report_flush();   /* lines of files closed after the run's record */
    iot_resolved_free();
    iot_readbacks_free();
    iot_config_free(iot_rt.config);
    iot_rt.config = NULL;
}
