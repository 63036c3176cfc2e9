/* The run's start and end as the MPI library sees them (MPI_Init, MPI_Finalize), and the run's
 * own record in the report, written once, at MPI_Finalize (or at exit in a program
 * without MPI, or that exits without finalizing: then each process writes its own):
 *   {"iotwin_run": 1, "config": ..., "config_error": ..., "ranks": n,
 *    "unmatched_rules": [{"rule": "files[1]", "match": "*.dat"}],
 *    "outside": {"bytes": n, "writes": n, "files": n, "examples": [names]}}
 * `unmatched_rules`: the config's `files` rules that matched no file any rank opened through
 * a layer; then each layer's own members (core/layer.h: run_report), such as posix/'s
 * `outside`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comms.h"
#include "core/json.h"
#include "core/layer.h"
#include "core/runtime.h"

#define EXPORT __attribute__((visibility("default")))

static int written;

/* Rule i matched a file on some rank (`used[i]`: the ranks it matched on). */
static void write_unmatched(struct buf *out, const struct iot_config *config,
                            const long long *used)
{
    int n = 0;
    PUT(out, ", \"unmatched_rules\": [");
    for (int i = 0; config && i < config->nfiles; i++) {
        if (used[i])
            continue;
        char label[32];
        iot_rule_label(label, sizeof label, i, -1);
        put(out, iot_json_sep(&n));
        PUT(out, "{\"rule\": ");
        put_string(out, label);
        PUT(out, ", \"match\": ");
        put_string(out, config->file_patterns[i]);
        PUT(out, "}");
    }
    PUT(out, "]");
}

static void write_record(int ranks, const long long *used)
{
    const struct iot_run *run = &iot_rt.run;
    struct buf out = {NULL, 0, 0, 0};
    PUT(&out, "{\"iotwin_run\": 1, \"config\": ");
    put_string(&out, run->config_path);
    PUT(&out, ", \"config_error\": ");
    put_string(&out, run->config_error);
    PUT(&out, ", \"ranks\": ");
    put_int(&out, ranks);
    write_unmatched(&out, iot_rt.config, used);
    for (int i = 0; i < iot_layer_count(); i++)
        if (iot_layer_at(i)->run_report)
            iot_layer_at(i)->run_report(&out);
    PUT(&out, "}\n");
    if (run->report_path && !out.failed)
        iot_append_line(run->report_path, out.s, out.len);
    free(out.s);
}

/* The run's figures: for each rule of the config, whether it matched a file, then the layers'
 * `run_sums` (core/layer.h). */
struct run_figures {
    long long *values;
    int count;
    int nrules;
};

static long long *layer_figures(const struct run_figures *f, int layer)
{
    return f->values + f->nrules + iot_layer_sums_at(layer);
}

/* This rank's figures; -1 when out of memory. */
static int gather_figures(struct run_figures *f)
{
    int nrules = iot_rt.config ? iot_rt.config->nfiles : 0;
    f->nrules = nrules;
    f->count = nrules + iot_layer_sums_at(iot_layer_count());
    f->values = calloc((size_t)f->count + 1, sizeof *f->values);
    if (!f->values)
        return -1;
    for (int i = 0; i < nrules; i++)
        f->values[i] = iot_rt.config->file_rule_used[i] != 0;
    for (int i = 0; i < iot_layer_count(); i++)
        if (iot_layer_at(i)->run_figures)
            iot_layer_at(i)->run_figures(layer_figures(f, i));
    return 0;
}

/* The figures summed over the ranks in one reduction, handed back to each layer. */
static void reduce_run(MPI_Comm comm, struct run_figures *f)
{
    if (comm != MPI_COMM_NULL && f->count)
        MPI_Allreduce(MPI_IN_PLACE, f->values, f->count, MPI_LONG_LONG, MPI_SUM, comm);
    for (int i = 0; i < iot_layer_count(); i++)
        if (iot_layer_at(i)->run_reduce)
            iot_layer_at(i)->run_reduce(comm, layer_figures(f, i));
}

/* `mpi`: reduce over MPI_COMM_WORLD (else this process's own figures). */
static void end_run(int mpi)
{
    int ranks = 1, rank = 0;
    struct run_figures figures;
    iot_report_flush();   /* every rank's file lines before rank 0's record */
    if (written++ || !iot_rt.run.report_path)   /* no report (as on every rank): no record */
        return;
    if (gather_figures(&figures))
        return;
    iot_depth++;
    reduce_run(mpi ? MPI_COMM_WORLD : MPI_COMM_NULL, &figures);
    if (mpi) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    }
    if (rank == 0)
        write_record(ranks, figures.values);
    free(figures.values);
    iot_depth--;
}

/* MPI_Init's own writes (shared-memory segments, ...) are the MPI library's. The runtime
 * starts when MPI_Init returns (config, the layers' look-ups of the functions they hook):
 * outside the program's first file session, which would pay it otherwise. */
EXPORT int MPI_Init(int *argc, char ***argv)
{
    static int (*real)(int *, char ***);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Init");
    iot_depth++;
    int rc = real(argc, argv);
    iot_depth--;
    iot_runtime_init();
    return rc;
}
EXPORT int PMPI_Init(int *argc, char ***argv) __attribute__((alias("MPI_Init")));

EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    static int (*real)(int *, char ***, int, int *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Init_thread");
    iot_depth++;
    int rc = real(argc, argv, required, provided);
    iot_depth--;
    iot_runtime_init();
    return rc;
}
EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
    __attribute__((alias("MPI_Init_thread")));

EXPORT int MPI_Finalize(void)
{
    static int (*real)(void);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "PMPI_Finalize");
    iot_runtime_init();
    iot_depth++;
    iot_report_settle_all(&iot_rt.run, 1);
    end_run(1);
    iot_comms_free();
    iot_depth--;
    return real();
}
EXPORT int PMPI_Finalize(void) __attribute__((alias("MPI_Finalize")));

void iot_run_end_at_exit(void)
{
    iot_report_settle_all(&iot_rt.run, 0);
    end_run(0);
}
