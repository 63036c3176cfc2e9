/* The program's nonblocking requests on MPI-IO files, from their posting (MPI_File_iwrite*,
 * _iread*) to their completion in MPI_Wait* / MPI_Test*: ROMIO moves a nonblocking
 * collective's data while its request is waited for, so the time a wait or test spends on a
 * file's request is that file's I/O time, not the program's computation. A call that waits on
 * several file requests at once gives each an equal share of its time (the files' I/O times
 * then add up to the time spent waiting). */
#pragma once
#include <mpi.h>

#include "core/records.h"
#include "mpiio/access.h"

/* A request the program posted on `file` (its direction as in its row of mpiio/calls.h); `op`:
 * its write's operation in the file's capture, -1 when none was captured. */
void iot_mpiio_request_posted(struct iot_file *file, enum iot_mpiio_direction direction,
                              MPI_Request request, int op);

/* A wait or test on `requests[0..n-1]`, around the real call: `begin` marks the file
 * requests among them (none, when the program has none pending: nothing else is done);
 * `end`, after the call, counts its time in their files and forgets each request the call
 * completed (its slot set to MPI_REQUEST_NULL). */
struct iot_mpiio_progress {
    int marked;            /* file requests among the call's */
    double start;
};
struct iot_mpiio_progress iot_mpiio_progress_begin(const MPI_Request *requests, int n);
void iot_mpiio_progress_end(const struct iot_mpiio_progress *c, const MPI_Request *requests);

/* A request freed by the program (MPI_Request_free) is no longer followed. */
void iot_mpiio_request_freed(MPI_Request request);

/* The file's requests are forgotten (it is closed or its record freed). */
void iot_mpiio_requests_of_file_forget(const struct iot_file *file);
