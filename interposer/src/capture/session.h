/* One file session's capture over all ranks of the file's communicator, at its close.
 *
 * A global call is (dataset, transfer, k): every rank's k-th collective write of that dataset
 * (ranks that wrote it fewer times take part with an empty selection), or every rank's k-th
 * independent one, then the k-th flushes. The transfers are apart because collective calls
 * match across ranks in order and independent ones do not meet them: rank 0's lone write of
 * PnetCDF's header is a call of its own, not a part of the other ranks' first collective
 * write of the same bytes. Times, gaps and the
 * transfer mode are reduced per call (gather.c). A selection where every rank wrote one box of
 * the same extents at origin + unravel(rank, grid) * extents is found with a few
 * MPI_Allreduce (regular.c) and written as {grid, block, origin}: memory that does not grow
 * with ranks. Only the other selections are gathered to rank 0 and written as run-length
 * encoded runs (record.c). */
#pragma once
#include <mpi.h>
#include <stddef.h>

#include "capture/types.h"

struct session {
    MPI_Comm comm;                 /* MPI_COMM_NULL: this process alone */
    int rank, size;
    int nd, ncalls, nwrites;       /* global calls: writes (by stream, k), then flushes */
    long long *per_stream;         /* max writes per stream (STREAM) over ranks; [2 nd]: flushes */
    int *dataset, *local;          /* per global call: dataset (-1 flush), this rank's call or -1 */
    double *mins;                  /* t_open, t_close, start[C] */
    double *maxs;                  /* t_open_done, t_close_done, end[C], gap[C], collective[C] */
    size_t *axis;                  /* per write: offset of its axes in the axis arrays */
    size_t naxes;
    int *regular;
    long long *grid, *block, *origin;   /* per write's axes */
    long long *gathered;           /* rank 0: every rank's irregular selections */
    int *gathered_len;
};

/* A dataset's writes of one transfer (collective 0 or 1): the calls matched across ranks. */
#define STREAM(dataset, collective) (2 * (dataset) + (collective))

/* The reduced times of global call g (mins / maxs hold 2 session times first). */
#define CALL_START(s, g) ((s)->mins[2 + (g)])
#define CALL_END(s, g) ((s)->maxs[2 + (g)])
#define CALL_GAP(s, g) ((s)->maxs[2 + (s)->ncalls + (g)])
#define CALL_COLLECTIVE(s, g) ((s)->maxs[2 + 2 * (s)->ncalls + (g)] > 0)

void session_allreduce(const struct session *s, void *buf, int n, MPI_Datatype type, MPI_Op op);
/* Every rank agrees whether to go on: 0 if any rank says 0. */
int session_all_ok(const struct session *s, int ok);
/* The number of axes of the dataset write g writes (0 for a flush). */
int session_axes(const struct session *s, const struct iot_capture *c, int g);
/* This rank's selection of write g: its pool entry, or NULL when it did not take part. */
const long long *session_selection(const struct session *s, const struct iot_capture *c, int g);

/* regular.c: which writes are regular, with their grid, block and origin (collective). */
int session_find_regular(struct session *s, const struct iot_capture *c);
/* record.c: rank 0 writes the session's line; 0 on failure. */
int session_write_record(const struct session *s, struct iot_file *file, struct iot_capture *c,
                         const char *path);
