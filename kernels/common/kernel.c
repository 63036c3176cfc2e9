#include "kernel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "h5output.h"
#include "held_blocks.h"
#include "report.h"
#include "workload.h"

typedef struct {
    const char *file;
    int independent, sync, describe, help;
    uint64_t ranks; /* 0: not given */
    const char *method_name;
    const output_method *method; /* NULL: the kernel has no --method */
} common_settings;

static char *command_line(int argc, char **argv, const char *name)
{
    size_t len = strlen(name) + 1;
    for (int i = 1; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *line = malloc(len);
    if (!line)
        return NULL;
    strcpy(line, name);
    for (int i = 1; i < argc; i++)
        strcat(strcat(line, " "), argv[i]);
    return line;
}

static int describe(int argc, char **argv, const kernel_def *k, const common_settings *c,
                    const layout *l)
{
    char *source = command_line(argc, argv, k->name);
    workload_run run = {k->name, source ? source : k->name, c->file, k->role,
                        c->method ? c->method->api : "hdf5", c->ranks ? c->ranks : 1,
                        c->independent, c->sync};
    workload_print(stdout, &run, l);
    free(source);
    return 0;
}

/* The kernel's layout for this shape; a failure without a message is running out of memory. */
static int lay_out(const kernel_def *k, const run_shape *shape, layout *l, char *err,
                   size_t errlen)
{
    *err = '\0';
    if (k->lay_out(shape, l, err, errlen) == 0)
        return 0;
    if (!*err)
        snprintf(err, errlen, "out of memory laying out %llu ranks",
                 (unsigned long long)shape->ranks);
    return -1;
}

static void die_on(int failed, const kernel_def *k, const char *err)
{
    if (!failed)
        return;
    fprintf(stderr, "%s: error: %s\n", k->name, err);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Each phase starts after a barrier, so rank 0's clock covers the slowest rank. */
static phase_times run_phases(const kernel_def *k, const common_settings *c, const layout *l,
                              const output_ops *ops, const held_blocks *held)
{
    char err[512];
    void *file = NULL;
    phase_times t = {0, 0, 0, 0};
    double start = phase_clock(MPI_COMM_WORLD);
    die_on(ops->open(&file, c->file, MPI_COMM_WORLD, c->independent, err, sizeof err), k, err);
    double opened = phase_clock(MPI_COMM_WORLD);
    die_on(ops->write(file, l, held, err, sizeof err), k, err);
    double written = phase_clock(MPI_COMM_WORLD);
    if (c->sync)
        die_on(ops->sync(file, err, sizeof err), k, err);
    double synced = phase_clock(MPI_COMM_WORLD);
    die_on(ops->close(file, err, sizeof err), k, err);
    double closed = phase_clock(MPI_COMM_WORLD);
    t.open_s = opened - start;
    t.write_s = written - opened;
    t.sync_s = synced - written;
    t.close_s = closed - synced;
    return t;
}

static void print_report(const kernel_def *k, const common_settings *c, int ranks,
                         const layout *l, const phase_times *t, const output_ops *ops,
                         const kernel_option *const tables[], size_t ntables)
{
    uint64_t bytes = layout_bytes(l);
    report_begin(stdout, k->name, (uint64_t)ranks, c->file, bytes);
    printf(", \"datasets\": %zu", l->count);
    report_phases(stdout, t, bytes);
    report_params(stdout, tables, ntables, c->independent ? "independent" : "collective",
                  ops->params ? ops->params() : NULL);
    printf("}\n");
    fflush(stdout);
}

/* Why this run cannot be made (err), after its layout is known; "" when it can. */
static void check_run(const common_settings *c, const layout *l, int size, char *err,
                      size_t errlen)
{
    if (c->ranks && c->ranks != (uint64_t)size)
        snprintf(err, errlen, "--ranks %llu differs from the %d ranks of this run "
                 "(--ranks is for --describe)", (unsigned long long)c->ranks, size);
    else if (l->one_call && !h5_has_multi_write())
        snprintf(err, errlen, "writing all datasets in one call needs H5Dwrite_multi "
                 "(HDF5 >= 1.14); this HDF5 is %d.%d.%d, where every dataset is its own "
                 "H5Dwrite (run without the option, or describe it with --describe)",
                 H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
}

static int run(const kernel_def *k, common_settings *c, const kernel_option *const tables[],
               size_t ntables)
{
    int rank, size, status = 0;
    char err[512] = "";
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    layout l = {0};
    run_shape shape = {(uint64_t)size, c->independent};
    const output_ops *ops = c->method ? c->method->ops : &h5_output_ops;
    if (lay_out(k, &shape, &l, err, sizeof err) == 0)
        check_run(c, &l, size, err, sizeof err);
    if (*err) {
        status = cli_fail_in_run(k->name, rank, err);
    } else {
        held_blocks held = {NULL, 0};
        if (ops->holds_blocks)
            die_on(held_blocks_make(&held, &l, (uint64_t)rank),
                   k, "out of memory holding this rank's blocks");
        phase_times t = run_phases(k, c, &l, ops, &held);
        if (rank == 0)
            print_report(k, c, size, &l, &t, ops, tables, ntables);
        held_blocks_free(&held);
    }
    layout_free(&l);
    MPI_Finalize();
    return status;
}

/* The --method the command line names (the kernel's first when none); -1 with err if none. */
static int choose_method(const kernel_def *k, common_settings *c, char *err, size_t errlen)
{
    if (!k->methods)
        return 0;
    if (!c->method_name)
        c->method_name = k->methods[0].name;
    for (const output_method *m = k->methods; m->name; m++)
        if (!strcmp(m->name, c->method_name)) {
            c->method = m;
            return 0;
        }
    int n = snprintf(err, errlen, "--method: '%s' is not one of", c->method_name);
    for (const output_method *m = k->methods; m->name && n > 0 && (size_t)n < errlen; m++)
        n += snprintf(err + n, errlen - (size_t)n, "%s %s", m == k->methods ? "" : ",",
                      m->name);
    return -1;
}

/* A method this build has no library for is refused before MPI starts. */
static int check_method_built(const common_settings *c, char *err, size_t errlen)
{
    if (!c->method || c->method->ops || c->describe)
        return 0;
    snprintf(err, errlen, "--method %s: %s", c->method->name, c->method->missing);
    return -1;
}

/* "how to write: hdf5 (default), mpiio, netcdf4" */
static void method_help(const kernel_def *k, char *help, size_t len)
{
    int n = snprintf(help, len, "how to write:");
    for (const output_method *m = k->methods; m->name && n > 0 && (size_t)n < len; m++)
        n += snprintf(help + n, len - (size_t)n, "%s %s%s", m == k->methods ? "" : ",", m->name,
                      m == k->methods ? " (default)" : "");
}

int kernel_main(int argc, char **argv, const kernel_def *k)
{
    char default_file[128], err[512], methods_help[256] = "";
    common_settings c = {NULL, 0, 1, 0, 0, 0, NULL, NULL};
    const kernel_option common[] = {
        {"file", OPT_TEXT, &c.file, 0, 0, "output file (default: KERNEL.h5, or KERNEL and the --method's suffix)", NULL},
        {"independent", OPT_SWITCH, &c.independent, 1, 0,
         "independent transfers (default: collective)", NULL},
        SYNC_OPTIONS(&c.sync),
        {"describe", OPT_SWITCH, &c.describe, 1, 0,
         "print the workload (sim-models/WORKLOAD.md) as JSON, write nothing", NULL},
        {"ranks", OPT_COUNT, &c.ranks, 0, 0, "ranks to describe (default 1)", NULL},
        HELP_OPTION(&c.help),
        {NULL, 0, NULL, 0, 0, NULL, NULL},
    };
    if (k->methods)
        method_help(k, methods_help, sizeof methods_help);
    const kernel_option method[] = {
        {"method", OPT_TEXT, &c.method_name, 0, 0, methods_help, "method"},
        {NULL, 0, NULL, 0, 0, NULL, NULL},
    };
    const kernel_option *const tables[] = {k->options, common, method};
    size_t ntables = k->methods ? 3 : 2;
    if (options_parse(argc, argv, tables, ntables, err, sizeof err) ||
        choose_method(k, &c, err, sizeof err) || check_method_built(&c, err, sizeof err))
        return cli_fail(k->name, err);
    if (c.help) {
        cli_print_help(k->name, k->summary, tables, ntables);
        return 0;
    }
    snprintf(default_file, sizeof default_file, "%s%s", k->name,
             c.method ? c.method->suffix : ".h5");
    if (!c.file)
        c.file = default_file;
    if (!c.describe)
        return run(k, &c, tables, ntables);
    layout l = {0};
    run_shape shape = {c.ranks ? c.ranks : 1, c.independent};
    int status = lay_out(k, &shape, &l, err, sizeof err) ? cli_fail(k->name, err)
                                                      : describe(argc, argv, k, &c, &l);
    layout_free(&l);
    return status;
}
