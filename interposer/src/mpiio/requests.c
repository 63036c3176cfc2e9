#define _GNU_SOURCE
#include "mpiio/requests.h"

#include <stdlib.h>

#include "capture/capture.h"
#include "core/runtime.h"
#include "core/text.h"
#include "mpiio/capture.h"

struct pending {
    MPI_Request request;
    struct iot_file *file;
    enum iot_mpiio_direction direction;
    int op;        /* its write in the file's capture, or -1 */
    int slot;      /* its index in the requests of the wait or test under way, or -1 */
};

/* Few at a time: a program waits for what it posted before it posts much more. */
static struct pending *pending;
static int npending;
static size_t pending_cap;

static void forget(int i)
{
    pending[i] = pending[--npending];
}

void iot_mpiio_request_posted(struct iot_file *file, enum iot_mpiio_direction direction,
                              MPI_Request request, int op)
{
    if (request == MPI_REQUEST_NULL
        || !iot_room(&pending, &pending_cap, (size_t)npending + 1, sizeof *pending))
        return;   /* out of memory: its completion's time is not counted, nothing else lost */
    pending[npending++] = (struct pending){request, file, direction, op, -1};
}

struct iot_mpiio_progress iot_mpiio_progress_begin(const MPI_Request *requests, int n)
{
    struct iot_mpiio_progress c = {0, 0.0};
    for (int p = 0; p < npending; p++) {
        pending[p].slot = -1;
        for (int i = 0; i < n && pending[p].slot < 0; i++)
            if (requests[i] == pending[p].request)
                pending[p].slot = i, c.marked++;
    }
    if (c.marked)
        c.start = iot_now();
    return c;
}

static void count(struct pending *p, double seconds)
{
    if (p->direction == IOT_MPIIO_READ)
        p->file->read_s += seconds;
    else
        p->file->write_s += seconds;
}

void iot_mpiio_progress_end(const struct iot_mpiio_progress *c, const MPI_Request *requests)
{
    if (!c->marked)
        return;
    double end = iot_now(), share = (end - c->start) / c->marked;
    for (int p = npending - 1; p >= 0; p--) {
        if (pending[p].slot < 0)
            continue;
        count(&pending[p], share);
        if (requests[pending[p].slot] != MPI_REQUEST_NULL) {
            pending[p].slot = -1;
            continue;
        }
        if (pending[p].op >= 0)
            iot_mpiio_capture_completed(pending[p].file, pending[p].op,
                                        iot_capture_epoch_of(end));
        forget(p);
    }
}

void iot_mpiio_request_freed(MPI_Request request)
{
    for (int p = npending - 1; p >= 0; p--)
        if (pending[p].request == request)
            forget(p);
}

void iot_mpiio_requests_of_file_forget(const struct iot_file *file)
{
    for (int p = npending - 1; p >= 0; p--)
        if (pending[p].file == file)
            forget(p);
    if (!npending) {   /* nothing pending: the table goes with the file's record */
        free(pending);
        pending = NULL;
        pending_cap = 0;
    }
}
