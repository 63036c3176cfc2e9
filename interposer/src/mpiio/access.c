#define _GNU_SOURCE
#include "mpiio/access.h"

#include "capture/capture.h"
#include "core/runtime.h"
#include "mpiio/capture.h"
#include "mpiio/requests.h"

static int file_rank(const struct iot_file *file)
{
    int rank = 0;
    if (file->comm != MPI_COMM_NULL)
        MPI_Comm_rank(file->comm, &rank);
    return rank;
}

/* Where a write starts, read before it: the explicit offset, the individual file pointer, or
 * the shared one (an ordered write's: rank 0's, the first in rank order, before any rank
 * moved it). */
static MPI_Offset start_of(const struct iot_mpiio_access *a, MPI_Offset offset)
{
    MPI_Offset at = 0;
    if (a->call->position == IOT_MPIIO_AT)
        return offset;
    if (a->call->position == IOT_MPIIO_INDIVIDUAL)
        MPI_File_get_position(a->fh, &at);
    else if (a->call->position == IOT_MPIIO_SHARED || file_rank(a->file) == 0)
        MPI_File_get_position_shared(a->fh, &at);
    return at;
}

struct iot_mpiio_access iot_mpiio_access_begin(struct iot_file *file, MPI_File fh,
                                               const struct iot_mpiio_call *call,
                                               MPI_Offset offset, MPI_Count count,
                                               MPI_Datatype type, MPI_Request *request)
{
    struct iot_mpiio_access a = {file, fh, call, 0, 0, 0, 0, request};
    MPI_Count size = 0;
    iot_depth++;
    MPI_Type_size_x(type, &size);
    a.bytes = (long long)count * size;
    if (call->direction == IOT_MPIIO_WRITE && call->completion != IOT_MPIIO_END)
        a.etype = iot_mpiio_etype_bytes(file, fh);
    if (a.etype)
        a.at = start_of(&a, offset);
    a.start = iot_now();
    return a;
}

static void count(struct iot_mpiio_access *a, int ok, double seconds)
{
    struct iot_file *file = a->file;
    int counted = a->call->completion != IOT_MPIIO_END;
    if (a->call->direction == IOT_MPIIO_READ) {
        file->read_s += seconds;
        file->reads += counted;
        file->read_bytes += ok ? a->bytes : 0;
    } else {
        file->write_s += seconds;
        file->writes += counted;
        file->bytes += ok ? a->bytes : 0;
    }
}

/* A shared file pointer write is placed where the pointer stood before it when the pointer
 * moved by exactly its own size meanwhile; else another rank's shared access came between,
 * and which of them went first is not known. */
static void capture_shared(struct iot_mpiio_access *a, double start, double end)
{
    MPI_Offset after = 0;
    MPI_File_get_position_shared(a->fh, &after);
    if ((after - a->at) * a->etype == a->bytes)
        iot_mpiio_capture_write(a->file, a->fh, a->at * a->etype, a->bytes, 0, start, end);
    else
        iot_capture_unsupported(a->file, "concurrent writes through the shared file pointer "
                                "(MPI_File_write_shared, _iwrite_shared): the order the ranks "
                                "took it in is not known", NULL);
}

static void capture(struct iot_mpiio_access *a, double start, double end)
{
    double t0 = iot_capture_epoch_of(start), t1 = iot_capture_epoch_of(end);
    if (a->call->position == IOT_MPIIO_SHARED)
        capture_shared(a, t0, t1);
    else if (a->call->position == IOT_MPIIO_ORDERED)
        iot_mpiio_capture_ordered(a->file, a->fh, a->at * a->etype, a->bytes, t0, t1);
    else
        iot_mpiio_capture_write(a->file, a->fh, a->at * a->etype, a->bytes,
                                a->call->collective, t0, t1);
}

int iot_mpiio_access_end(struct iot_mpiio_access *a, int rc)
{
    double end = iot_now();
    int ops = iot_mpiio_capture_ops(a->file);
    count(a, rc == MPI_SUCCESS, end - a->start);
    if (rc == MPI_SUCCESS && a->etype)
        capture(a, a->start, end);
    if (rc == MPI_SUCCESS && a->request) {
        int op = iot_mpiio_capture_ops(a->file) > ops ? ops : -1;
        iot_mpiio_request_posted(a->file, a->call->direction, *a->request, op);
    }
    iot_depth--;
    return rc;
}
