/* replay: a MACSio-like proxy that runs a workload file (sim-models/WORKLOAD.md).
 *
 * A timestep loop over the workload's file sessions in order: "compute" (a sleep of
 * compute_before_s, scaled by --compute-scale), then the session's writes: checkpoint files
 * created, written and closed; the visualisation file kept open across its sessions
 * (keep_open), one state appended and flushed per session. Growth shows in the sizes of
 * successive sessions, MACSio parts in access_elements, N-1 / N-N / N-M in each session's mode.
 * Prints the kernels' JSON line, with the bytes and times of each file role. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/report.h"
#include "replay_io.h"
#include "replay_workload.h"

#define NAME "replay"

static const char *const ROLE_NAMES[] = {"checkpoint", "visualisation", "other"};
#define NROLES 3

typedef struct {
    const char *workload;
    const char *dir;
    double compute_scale;
    int sync, help;
} replay_options;

/* Every role's sessions, bytes and phase times. */
typedef struct {
    session_times times[NROLES];
    unsigned sessions[NROLES];
    double compute_s;
} replay_totals;

static void compute(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static int role_index(const char *role)
{
    for (int r = 0; r < NROLES; r++)
        if (!strcmp(role, ROLE_NAMES[r]))
            return r;
    return NROLES - 1;
}

static void print_roles(const replay_totals *totals)
{
    const char *sep = "";
    printf(", \"roles\": {");
    for (int r = 0; r < NROLES; r++) {
        if (!totals->sessions[r])
            continue;
        const session_times *t = &totals->times[r];
        double seconds = phase_total(&t->phases);
        printf("%s\"%s\": {\"sessions\": %u, \"bytes\": %llu, \"total_s\": %.6f, "
               "\"rate_mbs\": %.3f}", sep, ROLE_NAMES[r], totals->sessions[r],
               (unsigned long long)t->bytes, seconds, rate_mbs(t->bytes, seconds));
        sep = ", ";
    }
    printf("}");
}

static void print_report(const replay_workload *w, const replay_totals *totals,
                         const kernel_option *const tables[], size_t ntables)
{
    session_times all = {{0, 0, 0, 0}, 0};
    for (int r = 0; r < NROLES; r++) {
        phase_add(&all.phases, &totals->times[r].phases);
        all.bytes += totals->times[r].bytes;
    }
    report_begin(stdout, NAME, w->ranks, w->name, all.bytes);
    report_phases(stdout, &all.phases, all.bytes);
    printf(", \"compute_s\": %.3f", totals->compute_s);
    report_params(stdout, tables, ntables, NULL, NULL);
    print_roles(totals);
    printf("}\n");
    fflush(stdout);
}

static int replay(const replay_options *o, const replay_workload *w, int rank,
                  replay_totals *totals, char *err, size_t errlen)
{
    replay_state st = {w->ranks, (uint64_t)rank, o->sync, NULL};
    for (size_t i = 0; i < w->nsessions; i++) {
        const replay_session *s = &w->sessions[i];
        double pause = s->compute_before_s * o->compute_scale;
        compute(pause);
        totals->compute_s += pause;
        int r = role_index(s->role);
        totals->sessions[r]++;
        if (replay_session_run(&st, s, &totals->times[r], err, errlen))
            return -1;
    }
    return replay_close_all(&st, &totals->times[role_index("visualisation")], err, errlen);
}

/* Under MPI: the run, or the reason it cannot be made (exit status 2) or failed (1). */
static int run(const replay_options *o, const replay_workload *w,
               const kernel_option *const tables[], size_t ntables)
{
    int rank, size, status = 0;
    char err[1024];
    replay_totals totals = {0};
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (w->ranks != (uint64_t)size) {
        snprintf(err, sizeof err, "%s: written for %llu ranks, running on %d: start it with "
                 "mpiexec -n %llu", o->workload, (unsigned long long)w->ranks, size,
                 (unsigned long long)w->ranks);
        status = cli_fail_in_run(NAME, rank, err);
    } else if (o->dir && chdir(o->dir)) {
        snprintf(err, sizeof err, "--dir %s: %s", o->dir, strerror(errno));
        status = cli_fail_in_run(NAME, rank, err);
    } else if (replay(o, w, rank, &totals, err, sizeof err)) {
        if (rank == 0)
            fprintf(stderr, "%s: error: %s\n", NAME, err);
        status = 1;
    } else if (rank == 0) {
        print_report(w, &totals, tables, ntables);
    }
    MPI_Finalize();
    return status;
}

/* replay --check FILE...: each file's verdict as a JSON line, without MPI; the status is 0
 * when every file is a workload the proxy runs, 2 when one is not a workload, else 3. */
static int check(int nfiles, char **files)
{
    wl_verdict worst = WL_ACCEPTED;
    for (int i = 0; i < nfiles; i++)
        worst = workload_worse_verdict(worst, replay_workload_verdict(files[i], stdout));
    return workload_verdict_status(worst);
}

int main(int argc, char **argv)
{
    replay_options o = {NULL, NULL, 1.0, 1, 0};
    const kernel_option options[] = {
        {"WORKLOAD", OPT_OPERAND, &o.workload, 0, 0,
         "the workload file (sim-models/WORKLOAD.md), YAML or JSON", "workload"},
        {"dir", OPT_TEXT, &o.dir, 0, 0, "write the files in this directory (default: here)",
         NULL},
        {"compute-scale", OPT_REAL, &o.compute_scale, 0, 0,
         "sleep X * compute_before_s before each session (default 1; 0: I/O back to back)",
         "compute_scale"},
        SYNC_OPTIONS(&o.sync),
        HELP_OPTION(&o.help),
        {NULL, 0, NULL, 0, 0, NULL, NULL},
    };
    const kernel_option *const tables[] = {options};
    char err[1024];
    if (argc > 1 && !strcmp(argv[1], "--check"))
        return check(argc - 2, argv + 2);
    if (options_parse(argc, argv, tables, 1, err, sizeof err))
        return cli_fail(NAME, err);
    if (o.help) {
        cli_print_help(NAME, "Runs the file sessions of a workload with MPI + HDF5 (or bare "
                       "MPI-IO), MACSio-like. `replay --check WORKLOAD...` checks workloads "
                       "without MPI: a JSON line of each one's verdict.", tables, 1);
        return 0;
    }
    if (!o.workload)
        return cli_fail(NAME, "no workload file given (see --help)");
    replay_workload w;
    if (replay_workload_load(o.workload, &w, err, sizeof err))
        return cli_fail(NAME, err);
    int status = run(&o, &w, tables, 1);
    replay_workload_free(&w);
    return status;
}
