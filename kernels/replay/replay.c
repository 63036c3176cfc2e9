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

#include "replay_io.h"
#include "replay_workload.h"

static const char *const ROLE_NAMES[] = {"checkpoint", "visualisation", "other"};
#define NROLES 3

typedef struct {
    const char *workload;
    const char *dir;
    double compute_scale;
    int sync;
} replay_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: replay [options] WORKLOAD.yaml\n"
            "Runs the file sessions of a workload (sim-models/WORKLOAD.md) with MPI + HDF5.\n"
            "  --dir DIR            write the files in DIR (default: the current directory)\n"
            "  --compute-scale X    sleep X * compute_before_s before each session (default 1;\n"
            "                       0 replays the I/O back to back)\n"
            "  --sync / --no-sync   sync each file to storage inside the timed region (default on)\n"
            "  --help\n");
}

/* 0 ok, 1 --help, -1 error (message in err). */
static int parse_options(int argc, char **argv, replay_options *o, char *err, size_t errlen)
{
    *o = (replay_options){NULL, NULL, 1.0, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "--sync") || !strcmp(a, "--no-sync")) {
            o->sync = !strcmp(a, "--sync");
        } else if (!strcmp(a, "--dir") || !strcmp(a, "--compute-scale")) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "%s: needs a value", a);
                return -1;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--dir")) {
                o->dir = v;
            } else {
                char *end;
                o->compute_scale = strtod(v, &end);
                if (!*v || *end || o->compute_scale < 0) {
                    snprintf(err, errlen, "--compute-scale: expected a number >= 0, got %s", v);
                    return -1;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            snprintf(err, errlen, "%s: unknown option (see --help)", a);
            return -1;
        } else if (o->workload) {
            snprintf(err, errlen, "%s: only one workload file is accepted", a);
            return -1;
        } else {
            o->workload = a;
        }
    }
    if (!o->workload) {
        snprintf(err, errlen, "no workload file given (see --help)");
        return -1;
    }
    return 0;
}

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

static double total_of(const session_times *t)
{
    return t->open_s + t->write_s + t->sync_s + t->close_s;
}

static void print_report(const replay_options *o, const replay_workload *w,
                         const session_times roles[], const unsigned sessions[], double compute_s)
{
    session_times all = {0};
    for (int r = 0; r < NROLES; r++) {
        all.open_s += roles[r].open_s;
        all.write_s += roles[r].write_s;
        all.sync_s += roles[r].sync_s;
        all.close_s += roles[r].close_s;
        all.bytes += roles[r].bytes;
    }
    double total = total_of(&all);
    printf("{\"kernel\": \"replay\", \"ranks\": %llu, \"file\": \"%s\", \"bytes\": %llu, "
           "\"open_s\": %.6f, \"write_s\": %.6f, \"sync_s\": %.6f, \"close_s\": %.6f, "
           "\"total_s\": %.6f, \"rate_mbs\": %.3f, \"compute_s\": %.3f, \"params\": "
           "{\"workload\": \"%s\", \"sync\": %s, \"compute_scale\": %g}, \"roles\": {",
           (unsigned long long)w->ranks, w->name, (unsigned long long)all.bytes, all.open_s,
           all.write_s, all.sync_s, all.close_s, total,
           total > 0 ? (double)all.bytes / 1e6 / total : 0.0, compute_s, o->workload,
           o->sync ? "true" : "false", o->compute_scale);
    const char *sep = "";
    for (int r = 0; r < NROLES; r++) {
        if (!sessions[r])
            continue;
        double t = total_of(&roles[r]);
        printf("%s\"%s\": {\"sessions\": %u, \"bytes\": %llu, \"total_s\": %.6f, "
               "\"rate_mbs\": %.3f}", sep, ROLE_NAMES[r], sessions[r],
               (unsigned long long)roles[r].bytes, t, t > 0 ? (double)roles[r].bytes / 1e6 / t : 0.0);
        sep = ", ";
    }
    printf("}}\n");
    fflush(stdout);
}

static int run(const replay_options *o, const replay_workload *w, int rank, char *err,
               size_t errlen)
{
    replay_state st = {w->ranks, (uint64_t)rank, o->sync, NULL};
    session_times roles[NROLES] = {{0}};
    unsigned sessions[NROLES] = {0};
    double compute_s = 0;
    for (size_t i = 0; i < w->nsessions; i++) {
        const replay_session *s = &w->sessions[i];
        double pause = s->compute_before_s * o->compute_scale;
        compute(pause);
        compute_s += pause;
        int r = role_index(s->role);
        sessions[r]++;
        if (replay_session_run(&st, s, &roles[r], err, errlen))
            return -1;
    }
    session_times closing = {0};
    if (replay_close_all(&st, &closing, err, errlen))
        return -1;
    roles[role_index("visualisation")].close_s += closing.close_s;
    if (rank == 0)
        print_report(o, w, roles, sessions, compute_s);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char err[1024] = "";
    replay_options o;
    replay_workload w = {0};
    int parsed = parse_options(argc, argv, &o, err, sizeof err);
    if (parsed == 1) {
        if (rank == 0)
            usage(stdout);
    } else if (parsed < 0 || replay_workload_load(o.workload, &w, err, sizeof err)) {
        status = 2;
    } else if (w.ranks != (uint64_t)size) {
        snprintf(err, sizeof err, "%s: written for %llu ranks, running on %d: start it with "
                 "mpiexec -n %llu", o.workload, (unsigned long long)w.ranks, size,
                 (unsigned long long)w.ranks);
        status = 2;
    } else if (o.dir && chdir(o.dir)) {
        snprintf(err, sizeof err, "--dir %s: %s", o.dir, strerror(errno));
        status = 2;
    } else if (run(&o, &w, rank, err, sizeof err)) {
        status = 1;
    }
    if (status && rank == 0)
        fprintf(stderr, "replay: %s\n", err);
    replay_workload_free(&w);
    MPI_Finalize();
    return status;
}
