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
#include "posix/file.h"
#include "posix/writes.h"

static struct iot_outside reduced;   /* at rank 0 after run_reduce */

/* Over comm: the outside writes summed; the lowest rank that wrote outside sends rank 0 its
 * file names. */
static void run_reduce(MPI_Comm comm)
{
    struct iot_outside *o = &reduced;
    int rank = 0;
    iot_posix_outside(o);
    if (comm == MPI_COMM_NULL)
        return;
    long long sums[3] = {o->bytes, o->writes, o->files};
    MPI_Comm_rank(comm, &rank);
    MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_LONG_LONG, MPI_SUM, comm);
    int namer = o->files ? rank : INT_MAX;
    MPI_Allreduce(MPI_IN_PLACE, &namer, 1, MPI_INT, MPI_MIN, comm);
    if (namer != INT_MAX && namer != 0 && rank == namer)
        MPI_Send(o->examples, sizeof o->examples, MPI_CHAR, 0, 0, comm);
    if (namer != INT_MAX && namer != 0 && rank == 0)
        MPI_Recv(o->examples, sizeof o->examples, MPI_CHAR, namer, 0, comm, MPI_STATUS_IGNORE);
    o->bytes = sums[0], o->writes = sums[1], o->files = sums[2];
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
    .run_reduce = run_reduce,
    .run_report = run_report,
};
IOT_REGISTER_LAYER(iot_posix_layer)
