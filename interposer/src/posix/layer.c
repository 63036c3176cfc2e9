/* The POSIX layer in the layers' table (core/layer.h): its data files (posix/file.h), whose
 * one lever is their Lustre layout, each with its state (the writes recorded for the capture);
 * and its writes outside the other layers and the data files (posix/writes.c), reduced over the
 * run and written in the run's record:
 *   "outside": {"bytes": n, "writes": n, "files": n, "examples": [names]}
 * summed over the ranks, with the names of rank 0's (or the lowest rank's that made any). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "posix/layer.h"

#include "capture/capture.h"
#include "core/json.h"
#include "core/layer.h"
#include "core/runtime.h"
#include "posix/file.h"
#include "posix/writes.h"

static struct iot_outside reduced;   /* at rank 0 after run_reduce */

/* This rank's outside writes, and its files again if it is rank 0: the sums then say whether
 * rank 0 has names to show. */
enum { BYTES, WRITES, FILES, FILES_AT_0, NSUMS };

static void run_figures(long long *mine)
{
    iot_posix_outside(&reduced);
    mine[BYTES] = reduced.bytes;
    mine[WRITES] = reduced.writes;
    mine[FILES] = reduced.files;
    mine[FILES_AT_0] = iot_world_rank() == 0 ? reduced.files : 0;
}

/* The sums over the ranks; where rank 0 wrote no outside file but another rank did, the lowest
 * such rank sends rank 0 its file names. */
static void run_reduce(MPI_Comm comm, const long long *sums)
{
    struct iot_outside *o = &reduced;
    o->bytes = sums[BYTES], o->writes = sums[WRITES];
    if (comm == MPI_COMM_NULL || !sums[FILES] || sums[FILES_AT_0]) {
        o->files = sums[FILES];
        return;
    }
    int rank = 0, namer = INT_MAX;
    MPI_Comm_rank(comm, &rank);
    if (o->files)
        namer = rank;
    MPI_Allreduce(MPI_IN_PLACE, &namer, 1, MPI_INT, MPI_MIN, comm);
    if (rank == namer)
        MPI_Send(o->examples, sizeof o->examples, MPI_CHAR, 0, 0, comm);
    if (rank == 0)
        MPI_Recv(o->examples, sizeof o->examples, MPI_CHAR, namer, 0, comm, MPI_STATUS_IGNORE);
    o->files = sums[FILES];
}

static void run_report(struct buf *out)
{
    const struct iot_outside *o = &reduced;
    char *copy = strdup(o->examples), *save = NULL;
    int n = 0;
    PUT(out, ", \"outside\": {\"bytes\": ");
    put_int(out, o->bytes);
    PUT(out, ", \"writes\": ");
    put_int(out, o->writes);
    PUT(out, ", \"files\": ");
    put_int(out, o->files);
    PUT(out, ", \"examples\": [");
    for (char *name = copy ? strtok_r(copy, "\n", &save) : NULL; name;
         name = strtok_r(NULL, "\n", &save)) {
        put(out, iot_json_sep(&n));
        put_string(out, name);
    }
    PUT(out, "]}");
    free(copy);
}

static void *file_new(struct iot_file *file)
{
    struct iot_posix_file *pf = calloc(1, sizeof *pf);
    file->driver = "posix";
    if (pf)
        pf->file = file;
    return pf;
}

static void file_free(struct iot_file *file)
{
    struct iot_posix_file *pf = file->state;
    iot_capture_free(file->capture);
    if (pf)
        free(pf->writes);
    free(pf);
}

const struct iot_layer iot_posix_layer = {
    .api = "posix",
    .blocks = IOT_B_LUSTRE,
    .init = iot_capture_init,
    .file_new = file_new,
    .file_free = file_free,
    .run_sums = NSUMS,
    .run_figures = run_figures,
    .run_reduce = run_reduce,
    .run_report = run_report,
};
IOT_REGISTER_LAYER(iot_posix_layer)
