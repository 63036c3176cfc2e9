/* One data access call of the program's on an MPI-IO file (a row of mpiio/calls.h), around
 * the real call: its bytes and time counted in the file's record, writes and reads apart, and
 * a write placed in the view's data stream for the capture (reads are counted, not captured:
 * the workload format has no reads).
 *
 * A nonblocking call is counted when it is posted, its time the posting's and then what its
 * request takes to complete in MPI_Wait* / MPI_Test* (mpiio/requests.h); a split collective's
 * bytes at its _begin, the time of both halves. */
#pragma once
#include <mpi.h>

#include "core/records.h"

enum iot_mpiio_direction { IOT_MPIIO_WRITE, IOT_MPIIO_READ };
enum iot_mpiio_position { IOT_MPIIO_AT, IOT_MPIIO_INDIVIDUAL, IOT_MPIIO_SHARED,
                          IOT_MPIIO_ORDERED };
enum iot_mpiio_completion { IOT_MPIIO_STATUS, IOT_MPIIO_REQUEST, IOT_MPIIO_BEGIN,
                            IOT_MPIIO_END };

/* A row's columns (mpiio/calls.h). */
struct iot_mpiio_call {
    enum iot_mpiio_direction direction;
    enum iot_mpiio_position position;
    int collective;
    enum iot_mpiio_completion completion;
};

struct iot_mpiio_access {
    struct iot_file *file;
    MPI_File fh;            /* the handle of the call (file->fh, or file->fh_alone) */
    const struct iot_mpiio_call *call;
    long long bytes;
    long long etype;        /* the view's etype bytes; 0: not captured */
    MPI_Offset at;          /* where it starts, in etypes of the view (AT, INDIVIDUAL); the
                             * shared file pointer before it (SHARED; ORDERED on rank 0) */
    double start;
    MPI_Request *request;   /* a nonblocking call's (REQUEST), else NULL */
};

/* Before the real call (`offset`: an AT call's explicit offset; `request`: where a
 * nonblocking call returns its request, else NULL). */
struct iot_mpiio_access iot_mpiio_access_begin(struct iot_file *file, MPI_File fh,
                                               const struct iot_mpiio_call *call,
                                               MPI_Offset offset, MPI_Count count,
                                               MPI_Datatype type, MPI_Request *request);
/* After it, with what it returned; returns `rc`. */
int iot_mpiio_access_end(struct iot_mpiio_access *access, int rc);
