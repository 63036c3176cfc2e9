/* The global call list of a session, its reduced times and its irregular selections gathered
 * to rank 0 (capture/session.h); then rank 0 writes the record. */
#define _GNU_SOURCE
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/session.h"

void session_allreduce(const struct session *s, void *buf, int n, MPI_Datatype type, MPI_Op op)
{
    if (s->comm != MPI_COMM_NULL && n > 0)
        MPI_Allreduce(MPI_IN_PLACE, buf, n, type, op, s->comm);
}

int session_all_ok(const struct session *s, int ok)
{
    session_allreduce(s, &ok, 1, MPI_INT, MPI_MIN);
    return ok;
}

int session_axes(const struct session *s, const struct iot_capture *c, int g)
{
    return s->dataset[g] >= 0 ? c->datasets[s->dataset[g]].rank : 0;
}

const long long *session_selection(const struct session *s, const struct iot_capture *c, int g)
{
    return s->local[g] >= 0 ? c->pool + c->calls[s->local[g]].sel : NULL;
}

static void session_free(struct session *s)
{
    free(s->per_stream), free(s->dataset), free(s->local), free(s->mins), free(s->maxs);
    free(s->axis), free(s->regular), free(s->grid), free(s->block), free(s->origin);
    free(s->gathered), free(s->gathered_len);
}

/* --- the global call list ----------------------------------------------------------------- */

static int count_calls(struct session *s, const struct iot_capture *c)
{
    long long shape[2] = {c->ndatasets, -c->ndatasets};
    session_allreduce(s, shape, 2, MPI_LONG_LONG, MPI_MAX);
    if (shape[0] != -shape[1])
        return 0;
    s->nd = c->ndatasets;
    int flushes = 2 * s->nd;
    if (!(s->per_stream = calloc((size_t)flushes + 1, sizeof *s->per_stream)))
        return 0;
    for (int d = 0; d < s->nd; d++)
        for (int collective = 0; collective < 2; collective++)
            s->per_stream[STREAM(d, collective)] = c->datasets[d].writes[collective];
    s->per_stream[flushes] = c->flushes;
    session_allreduce(s, s->per_stream, flushes + 1, MPI_LONG_LONG, MPI_MAX);
    long long total = 0;
    for (int k = 0; k <= flushes; k++)
        total += s->per_stream[k];
    s->ncalls = (int)total;
    s->nwrites = (int)(total - s->per_stream[flushes]);
    return total < (1LL << 30);
}

static int stream_of(const struct session *s, const struct cap_call *call)
{
    return call->dataset >= 0 ? STREAM(call->dataset, call->collective) : 2 * s->nd;
}

static int map_calls(struct session *s, const struct iot_capture *c)
{
    size_t n = (size_t)s->ncalls + 1;
    int flushes = 2 * s->nd;
    long long *base = calloc((size_t)flushes + 1, sizeof *base);
    s->dataset = malloc(n * sizeof *s->dataset);
    s->local = malloc(n * sizeof *s->local);
    if (!base || !s->dataset || !s->local) {
        free(base);
        return 0;
    }
    for (int k = 0, g = 0; k <= flushes; k++) {
        base[k] = g;
        for (long long j = 0; j < s->per_stream[k]; j++, g++) {
            s->dataset[g] = k < flushes ? k / 2 : -1;
            s->local[g] = -1;
        }
    }
    for (int i = 0; i < c->ncalls; i++)
        s->local[base[stream_of(s, &c->calls[i])] + c->calls[i].ordinal] = i;
    free(base);
    return 1;
}

static int reduce_times(struct session *s, const struct iot_capture *c, double close_start,
                        double close_end)
{
    int C = s->ncalls;
    s->mins = malloc((size_t)(2 + C) * sizeof *s->mins);
    s->maxs = malloc((size_t)(2 + 3 * C) * sizeof *s->maxs);
    if (!session_all_ok(s, s->mins && s->maxs))
        return 0;
    s->mins[0] = c->t_open, s->mins[1] = close_start;
    s->maxs[0] = c->t_open_done, s->maxs[1] = close_end;
    for (int g = 0; g < C; g++) {
        const struct cap_call *call = s->local[g] >= 0 ? &c->calls[s->local[g]] : NULL;
        CALL_START(s, g) = call ? call->start : DBL_MAX;
        CALL_END(s, g) = call ? call->end : -DBL_MAX;
        CALL_GAP(s, g) = call ? call->gap : 0;
        s->maxs[2 + 2 * C + g] = call ? call->collective : 0;
    }
    session_allreduce(s, s->mins, 2 + C, MPI_DOUBLE, MPI_MIN);
    session_allreduce(s, s->maxs, 2 + 3 * C, MPI_DOUBLE, MPI_MAX);
    return 1;
}

/* --- irregular selections: gathered to rank 0 --------------------------------------------- */

/* The length of this rank's entry for write g: its selection, or a 0 when it took no part. */
static size_t entry_length(const struct session *s, const struct iot_capture *c, int g)
{
    const long long *sel = session_selection(s, c, g);
    return sel ? 1 + (size_t)(sel[0] * DESC(session_axes(s, c, g))) : 1;
}

/* This rank's irregular selections, in global write order; *n their length. */
static long long *irregular_entries(const struct session *s, const struct iot_capture *c,
                                    size_t *n)
{
    *n = 0;
    for (int g = 0; g < s->nwrites; g++)
        *n += s->regular[g] ? 0 : entry_length(s, c, g);
    long long *mine = malloc((*n + 1) * sizeof *mine), *p = mine;
    for (int g = 0; mine && g < s->nwrites; g++) {
        const long long *sel = session_selection(s, c, g);
        size_t len = entry_length(s, c, g);
        if (s->regular[g])
            continue;
        if (sel)
            memcpy(p, sel, len * sizeof *p);
        else
            *p = 0;
        p += len;
    }
    return mine;
}

static int gather_irregular(struct session *s, const struct iot_capture *c)
{
    size_t n = 0;
    long long *mine = irregular_entries(s, c, &n);
    if (!session_all_ok(s, mine != NULL && n < (1u << 30))) {
        free(mine);
        return 0;
    }
    if (s->comm == MPI_COMM_NULL) {
        s->gathered = mine;
        return 1;
    }
    int len = (int)n, *offsets = NULL;
    long long total = 0;
    if (s->rank == 0) {
        s->gathered_len = malloc((size_t)s->size * sizeof *s->gathered_len);
        offsets = malloc((size_t)s->size * sizeof *offsets);
    }
    MPI_Gather(&len, 1, MPI_INT, s->gathered_len, 1, MPI_INT, 0, s->comm);
    for (int r = 0; s->rank == 0 && r < s->size; r++) {
        offsets[r] = (int)total;
        total += s->gathered_len[r];
    }
    if (s->rank == 0)
        s->gathered = malloc(((size_t)total + 1) * sizeof *s->gathered);
    MPI_Gatherv(mine, len, MPI_LONG_LONG, s->gathered, s->gathered_len, offsets, MPI_LONG_LONG,
                0, s->comm);
    free(offsets);
    free(mine);
    return 1;
}

/* --- the session ------------------------------------------------------------------------------ */

/* Why the session cannot be written (NULL: it was, or this rank is not rank 0). */
static const char *gather(struct session *s, struct iot_file *file, struct iot_capture *c,
                          double close_start, double close_end, const char *path)
{
    if (!session_all_ok(s, !c->failed))
        return c->failed ? c->failed : "another rank's capture failed";
    if (!count_calls(s, c))
        return "the ranks created different numbers of datasets";
    if (!session_all_ok(s, map_calls(s, c)) || !reduce_times(s, c, close_start, close_end)
        || !session_find_regular(s, c) || !gather_irregular(s, c))
        return "out of memory";
    if (s->rank == 0 && !session_write_record(s, file, c, path))
        return "could not write the capture file";
    return NULL;
}

void iot_capture_gather(struct iot_file *file, struct iot_capture *c, double close_start,
                        double close_end, const char *path)
{
    struct session s = {0};
    s.comm = file->collective ? file->comm : MPI_COMM_NULL;
    s.size = 1;
    if (s.comm != MPI_COMM_NULL) {
        MPI_Comm_rank(s.comm, &s.rank);
        MPI_Comm_size(s.comm, &s.size);
    }
    const char *why = gather(&s, file, c, close_start, close_end, path);
    if (why && (s.rank == 0 || c->failed))
        fprintf(stderr, "iotwin: capture of %s failed: %s (the program goes on)\n", file->name,
                why);
    session_free(&s);
}
