/* Every MPI-IO data access call the interposer hooks: one row each, from which mpiio/hooks.c
 * generates the table of real functions, their lookup, the wrappers and the PMPI_ aliases.
 *
 *     X(name, direction, position, collective, completion, count_type)
 *
 * name        MPI_File_<name>
 * direction   WRITE | READ
 * position    AT (an explicit offset) | INDIVIDUAL (the individual file pointer) |
 *             SHARED (the shared file pointer, one rank at a time) |
 *             ORDERED (the shared file pointer, collectively in rank order)
 * collective  1: every rank of the file's communicator calls it
 * completion  STATUS (blocking) | REQUEST (nonblocking, MPI_Request) |
 *             BEGIN (a split collective's first half) | END (its second half: no count)
 * count_type  int | MPI_Count (MPI-4's large-count `_c` variants, only where mpi.h is MPI-4) */
#pragma once
#include <mpi.h>

#if MPI_VERSION >= 4
#define IOT_LARGE_COUNT(row) row
#else
#define IOT_LARGE_COUNT(row)
#endif

/* One direction's calls at a position given by an explicit offset (`at`: _at, `POSITION`: AT)
 * or by the individual file pointer (`at` empty, INDIVIDUAL): `rw` is write or read, `RW` its
 * direction. */
#define IOT_MPIIO_POSITIONED_CALLS(X, rw, RW, at, POSITION) \
    X(rw##at, RW, POSITION, 0, STATUS, int) \
    IOT_LARGE_COUNT(X(rw##at##_c, RW, POSITION, 0, STATUS, MPI_Count)) \
    X(rw##at##_all, RW, POSITION, 1, STATUS, int) \
    IOT_LARGE_COUNT(X(rw##at##_all_c, RW, POSITION, 1, STATUS, MPI_Count)) \
    X(i##rw##at, RW, POSITION, 0, REQUEST, int) \
    IOT_LARGE_COUNT(X(i##rw##at##_c, RW, POSITION, 0, REQUEST, MPI_Count)) \
    X(i##rw##at##_all, RW, POSITION, 1, REQUEST, int) \
    IOT_LARGE_COUNT(X(i##rw##at##_all_c, RW, POSITION, 1, REQUEST, MPI_Count)) \
    X(rw##at##_all_begin, RW, POSITION, 1, BEGIN, int) \
    IOT_LARGE_COUNT(X(rw##at##_all_begin_c, RW, POSITION, 1, BEGIN, MPI_Count)) \
    X(rw##at##_all_end, RW, POSITION, 1, END, int)

/* One direction's calls through the shared file pointer. */
#define IOT_MPIIO_SHARED_CALLS(X, rw, RW) \
    X(rw##_shared, RW, SHARED, 0, STATUS, int) \
    IOT_LARGE_COUNT(X(rw##_shared_c, RW, SHARED, 0, STATUS, MPI_Count)) \
    X(i##rw##_shared, RW, SHARED, 0, REQUEST, int) \
    IOT_LARGE_COUNT(X(i##rw##_shared_c, RW, SHARED, 0, REQUEST, MPI_Count)) \
    X(rw##_ordered, RW, ORDERED, 1, STATUS, int) \
    IOT_LARGE_COUNT(X(rw##_ordered_c, RW, ORDERED, 1, STATUS, MPI_Count)) \
    X(rw##_ordered_begin, RW, ORDERED, 1, BEGIN, int) \
    IOT_LARGE_COUNT(X(rw##_ordered_begin_c, RW, ORDERED, 1, BEGIN, MPI_Count)) \
    X(rw##_ordered_end, RW, ORDERED, 1, END, int)

#define IOT_MPIIO_DIRECTION_CALLS(X, rw, RW) \
    IOT_MPIIO_POSITIONED_CALLS(X, rw, RW, _at, AT) \
    IOT_MPIIO_POSITIONED_CALLS(X, rw, RW, , INDIVIDUAL) \
    IOT_MPIIO_SHARED_CALLS(X, rw, RW)

#define IOT_MPIIO_ACCESS_CALLS(X) \
    IOT_MPIIO_DIRECTION_CALLS(X, write, WRITE) \
    IOT_MPIIO_DIRECTION_CALLS(X, read, READ)

/* Calls in which the MPI library may write files of its own, or the program's data for it:
 * ROMIO's hidden file of the shared file pointer, a preallocation's blocks, and the data of
 * nonblocking collective reads and writes, which ROMIO moves as their requests progress in
 * MPI_Wait and MPI_Test. Passed straight on, as the library's: what it writes inside is not
 * counted as the program's writes outside MPI-IO (the time there is not the file's).
 *
 *     X(name, params, args) */
#define IOT_MPIIO_LIBRARY_CALLS(X) \
    X(MPI_File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence), (fh, offset, whence)) \
    X(MPI_File_get_position_shared, (MPI_File fh, MPI_Offset *offset), (fh, offset)) \
    X(MPI_File_preallocate, (MPI_File fh, MPI_Offset size), (fh, size))

/* The waits and tests of requests, hooked under their MPI_ names only (the interposer's own
 * waits call the PMPI_ ones; Open MPI's Fortran MPI_WAIT, which calls PMPI_Wait, is not
 * seen): as the calls above, the library's writes inside are not counted as the program's;
 * and the time one spends on the program's requests on a file is that file's
 * (mpiio/requests.h).
 *
 *     X(name, params, args, requests, n): `requests[0..n-1]`, the requests it waits for */
#define IOT_MPI_PROGRESS_CALLS(X) \
    X(MPI_Wait, (MPI_Request *request, MPI_Status *status), (request, status), request, 1) \
    X(MPI_Waitall, (int n, MPI_Request *requests, MPI_Status *statuses), \
      (n, requests, statuses), requests, n) \
    X(MPI_Waitany, (int n, MPI_Request *requests, int *index, MPI_Status *status), \
      (n, requests, index, status), requests, n) \
    X(MPI_Waitsome, (int n, MPI_Request *requests, int *done, int *indices, \
                     MPI_Status *statuses), (n, requests, done, indices, statuses), requests, n) \
    X(MPI_Test, (MPI_Request *request, int *flag, MPI_Status *status), \
      (request, flag, status), request, 1) \
    X(MPI_Testall, (int n, MPI_Request *requests, int *flag, MPI_Status *statuses), \
      (n, requests, flag, statuses), requests, n) \
    X(MPI_Testany, (int n, MPI_Request *requests, int *index, int *flag, MPI_Status *status), \
      (n, requests, index, flag, status), requests, n) \
    X(MPI_Testsome, (int n, MPI_Request *requests, int *done, int *indices, \
                     MPI_Status *statuses), (n, requests, done, indices, statuses), requests, n)

/* --- a row's C signature --------------------------------------------------------------------- */

#define IOT_BUFFER_WRITE const void *
#define IOT_BUFFER_READ void *

#define IOT_OFFSET_PARAM_AT MPI_Offset offset,
#define IOT_OFFSET_PARAM_INDIVIDUAL
#define IOT_OFFSET_PARAM_SHARED
#define IOT_OFFSET_PARAM_ORDERED
#define IOT_OFFSET_ARG_AT offset,
#define IOT_OFFSET_ARG_INDIVIDUAL
#define IOT_OFFSET_ARG_SHARED
#define IOT_OFFSET_ARG_ORDERED

/* The parameter list of a call (`position`, `completion`, `direction`, `count_type` as in its
 * row) and the argument list passing them on. */
#define IOT_PARAMS(position, completion, direction, count_type) \
    IOT_PARAMS_##completion(IOT_OFFSET_PARAM_##position, IOT_BUFFER_##direction, count_type)
#define IOT_ARGS(position, completion) IOT_ARGS_##completion(IOT_OFFSET_ARG_##position)

#define IOT_PARAMS_STATUS(offset, buffer, count_type) \
    (MPI_File fh, offset buffer buf, count_type count, MPI_Datatype type, MPI_Status *status)
#define IOT_PARAMS_REQUEST(offset, buffer, count_type) \
    (MPI_File fh, offset buffer buf, count_type count, MPI_Datatype type, MPI_Request *request)
#define IOT_PARAMS_BEGIN(offset, buffer, count_type) \
    (MPI_File fh, offset buffer buf, count_type count, MPI_Datatype type)
#define IOT_PARAMS_END(offset, buffer, count_type) (MPI_File fh, buffer buf, MPI_Status *status)

#define IOT_ARGS_STATUS(offset) (fh, offset buf, count, type, status)
#define IOT_ARGS_REQUEST(offset) (fh, offset buf, count, type, request)
#define IOT_ARGS_BEGIN(offset) (fh, offset buf, count, type)
#define IOT_ARGS_END(offset) (fh, buf, status)

/* What a call moves: `count` elements of `type`; an END moves nothing of its own (its BEGIN
 * counted the data). */
#define IOT_COUNT_STATUS count
#define IOT_COUNT_REQUEST count
#define IOT_COUNT_BEGIN count
#define IOT_COUNT_END 0
#define IOT_TYPE_STATUS type
#define IOT_TYPE_REQUEST type
#define IOT_TYPE_BEGIN type
#define IOT_TYPE_END MPI_BYTE
/* Where a nonblocking call returns its request (NULL: not a nonblocking call). */
#define IOT_REQUEST_STATUS NULL
#define IOT_REQUEST_REQUEST request
#define IOT_REQUEST_BEGIN NULL
#define IOT_REQUEST_END NULL

/* The explicit offset of a call, 0 where the position is a file pointer or the call an END. */
#define IOT_OFFSET(position, completion) IOT_OFFSET_##completion(IOT_OFFSET_OF_##position)
#define IOT_OFFSET_STATUS(offset) offset
#define IOT_OFFSET_REQUEST(offset) offset
#define IOT_OFFSET_BEGIN(offset) offset
#define IOT_OFFSET_END(offset) 0
#define IOT_OFFSET_OF_AT offset
#define IOT_OFFSET_OF_INDIVIDUAL 0
#define IOT_OFFSET_OF_SHARED 0
#define IOT_OFFSET_OF_ORDERED 0
