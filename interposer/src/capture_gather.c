/* One session's capture over all ranks of the file's communicator, at H5Fclose.
 *
 * A global call is (dataset, k): every rank's k-th write of that dataset (ranks that wrote it
 * fewer times take part with an empty selection), then the k-th flushes. Times, gaps and the
 * transfer mode are reduced per call. A selection where every rank wrote one box of the same
 * extents at origin + unravel(rank, grid) * extents is found with a few MPI_Allreduce and
 * written as {grid, block, origin}: memory that does not grow with ranks. Only the other
 * selections are gathered to rank 0 and written as run-length encoded runs. */
#define _GNU_SOURCE
#include <float.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "capture_types.h"
#include "readback.h"
#include "report.h"

struct session {
    MPI_Comm comm;                 /* MPI_COMM_NULL: this process alone */
    int rank, size;
    int nd, ncalls, nwrites;       /* global calls: writes (by dataset, k), then flushes */
    long long *per_dataset;        /* max writes per dataset over ranks; [nd] = flushes */
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

static void allreduce(const struct session *s, void *buf, int n, MPI_Datatype type, MPI_Op op)
{
    if (s->comm != MPI_COMM_NULL && n > 0)
        MPI_Allreduce(MPI_IN_PLACE, buf, n, type, op, s->comm);
}

static void session_free(struct session *s)
{
    free(s->per_dataset), free(s->dataset), free(s->local), free(s->mins), free(s->maxs);
    free(s->axis), free(s->regular), free(s->grid), free(s->block), free(s->origin);
    free(s->gathered), free(s->gathered_len);
}

/* Every rank agrees whether to go on: 0 if any rank failed (its reason in *why). */
static int all_ok(const struct session *s, int ok)
{
    allreduce(s, &ok, 1, MPI_INT, MPI_MIN);
    return ok;
}

static int rank_of(const struct cap_dataset *datasets, const struct session *s, int g)
{
    return s->dataset[g] >= 0 ? datasets[s->dataset[g]].rank : 0;
}

/* --- the global call list ----------------------------------------------------------------- */

static int count_calls(struct session *s, const struct iot_capture *c)
{
    long long shape[2] = {c->ndatasets, -c->ndatasets};
    allreduce(s, shape, 2, MPI_LONG_LONG, MPI_MAX);
    if (shape[0] != -shape[1])
        return 0;
    s->nd = c->ndatasets;
    if (!(s->per_dataset = calloc((size_t)s->nd + 1, sizeof *s->per_dataset)))
        return 0;
    for (int d = 0; d < s->nd; d++)
        s->per_dataset[d] = c->datasets[d].writes;
    s->per_dataset[s->nd] = c->flushes;
    allreduce(s, s->per_dataset, s->nd + 1, MPI_LONG_LONG, MPI_MAX);
    long long total = 0;
    for (int d = 0; d <= s->nd; d++)
        total += s->per_dataset[d];
    s->ncalls = (int)total;
    s->nwrites = (int)(total - s->per_dataset[s->nd]);
    return total < (1LL << 30);
}

static int map_calls(struct session *s, const struct iot_capture *c)
{
    size_t n = (size_t)s->ncalls + 1;
    long long *base = calloc((size_t)s->nd + 1, sizeof *base);
    s->dataset = malloc(n * sizeof *s->dataset);
    s->local = malloc(n * sizeof *s->local);
    if (!base || !s->dataset || !s->local) {
        free(base);
        return 0;
    }
    for (int d = 0, g = 0; d <= s->nd; d++) {
        base[d] = g;
        for (long long k = 0; k < s->per_dataset[d]; k++, g++) {
            s->dataset[g] = d < s->nd ? d : -1;
            s->local[g] = -1;
        }
    }
    for (int i = 0; i < c->ncalls; i++) {
        const struct cap_call *call = &c->calls[i];
        s->local[base[call->dataset >= 0 ? call->dataset : s->nd] + call->ordinal] = i;
    }
    free(base);
    return 1;
}

static int reduce_times(struct session *s, const struct iot_capture *c, double close_start,
                        double close_end)
{
    int C = s->ncalls;
    s->mins = malloc((size_t)(2 + C) * sizeof *s->mins);
    s->maxs = malloc((size_t)(2 + 3 * C) * sizeof *s->maxs);
    if (!all_ok(s, s->mins && s->maxs))
        return 0;
    s->mins[0] = c->t_open, s->mins[1] = close_start;
    s->maxs[0] = c->t_open_done, s->maxs[1] = close_end;
    for (int g = 0; g < C; g++) {
        const struct cap_call *call = s->local[g] >= 0 ? &c->calls[s->local[g]] : NULL;
        s->mins[2 + g] = call ? call->start : DBL_MAX;
        s->maxs[2 + g] = call ? call->end : -DBL_MAX;
        s->maxs[2 + C + g] = call ? call->gap : 0;
        s->maxs[2 + 2 * C + g] = call ? call->collective : 0;
    }
    allreduce(s, s->mins, 2 + C, MPI_DOUBLE, MPI_MIN);
    allreduce(s, s->maxs, 2 + 3 * C, MPI_DOUBLE, MPI_MAX);
    return 1;
}

/* --- regular selections --------------------------------------------------------------------- */

/* This rank's selection of write g: its pool entry, or NULL when it did not take part. */
static const long long *selection(const struct session *s, const struct iot_capture *c, int g)
{
    return s->local[g] >= 0 ? c->pool + c->calls[s->local[g]].sel : NULL;
}

/* 1 if this rank wrote exactly one non-empty box in write g: its start and extents. */
static int one_box(const long long *sel, int rank, const long long **start,
                   const long long **extents)
{
    if (!sel || sel[0] != 1 || rank == 0)
        return 0;
    const long long *h = sel + 1;
    for (int a = 0; a < rank; a++)
        if (h[rank + a] != 1 || h[3 * rank + a] != 1 || h[2 * rank + a] <= 0)
            return 0;
    *start = h;
    *extents = h + 2 * rank;
    return 1;
}

static int unravel_matches(int writer, const long long *coord, const long long *grid, int rank)
{
    for (int a = rank - 1; a >= 0; a--) {
        if (coord[a] != writer % grid[a])
            return 0;
        writer /= (int)grid[a];
    }
    return writer == 0;
}

static int find_regular(struct session *s, const struct iot_capture *c)
{
    int W = s->nwrites;
    s->axis = malloc(((size_t)W + 1) * sizeof *s->axis);
    s->regular = calloc((size_t)W + 1, sizeof *s->regular);
    if (!s->axis || !s->regular)
        return all_ok(s, 0);
    s->naxes = 0;
    for (int g = 0; g < W; g++) {
        s->axis[g] = s->naxes;
        s->naxes += (size_t)c->datasets[s->dataset[g]].rank;
    }
    size_t T = s->naxes;
    /* round 1: all one box?  extents min / max, start min (the origin) */
    long long *lo = malloc(((size_t)W + 2 * T + 1) * sizeof *lo);
    long long *hi = malloc(((size_t)W + T + 1) * sizeof *hi);
    const long long **box = malloc(((size_t)W + 1) * sizeof *box);   /* this rank's, or NULL */
    s->grid = malloc((T + 1) * sizeof *s->grid);
    s->block = malloc((T + 1) * sizeof *s->block);
    s->origin = malloc((T + 1) * sizeof *s->origin);
    if (!all_ok(s, lo && hi && box && s->grid && s->block && s->origin)) {
        free(lo), free(hi), free(box);
        return 0;
    }
    for (int g = 0; g < W; g++) {
        int r = c->datasets[s->dataset[g]].rank;
        const long long *start = NULL, *ext = NULL;
        int one = one_box(selection(s, c, g), r, &start, &ext);
        box[g] = one ? start : NULL;
        lo[g] = one;
        for (int a = 0; a < r; a++) {
            lo[W + s->axis[g] + a] = one ? ext[a] : 0;
            lo[W + T + s->axis[g] + a] = one ? start[a] : 0;
            hi[s->axis[g] + a] = one ? ext[a] : 0;
        }
    }
    allreduce(s, lo, W + 2 * (int)T, MPI_LONG_LONG, MPI_MIN);
    allreduce(s, hi, (int)T, MPI_LONG_LONG, MPI_MAX);
    for (int g = 0; g < W; g++) {
        int r = c->datasets[s->dataset[g]].rank;
        s->regular[g] = lo[g] == 1;
        for (int a = 0; a < r; a++) {
            size_t x = s->axis[g] + a;
            s->block[x] = lo[W + x];
            s->origin[x] = lo[W + T + x];
            s->regular[g] &= lo[W + x] == hi[x];
        }
    }
    /* round 2: coordinates; the grid is their maximum + 1 */
    for (int g = 0; g < W; g++) {
        int r = c->datasets[s->dataset[g]].rank;
        const long long *start = s->regular[g] ? box[g] : NULL;
        hi[g] = 0;
        for (int a = 0; a < r; a++) {
            size_t x = s->axis[g] + a;
            long long offset = start ? start[a] - s->origin[x] : 0;
            hi[g] |= start && offset % s->block[x] != 0;
            hi[W + x] = start ? offset / s->block[x] : 0;
        }
    }
    allreduce(s, hi, W + (int)T, MPI_LONG_LONG, MPI_MAX);
    for (int g = 0; g < W; g++) {
        int r = c->datasets[s->dataset[g]].rank;
        long long writers = 1;
        for (int a = 0; a < r; a++) {
            s->grid[s->axis[g] + a] = hi[W + s->axis[g] + a] + 1;
            writers *= s->grid[s->axis[g] + a];
        }
        s->regular[g] &= !hi[g] && writers == s->size;
    }
    /* round 3: every rank sits at unravel(rank, grid) */
    for (int g = 0; g < W; g++) {
        int r = c->datasets[s->dataset[g]].rank;
        const long long *start = s->regular[g] ? box[g] : NULL;
        long long coord[MAXR];
        for (int a = 0; start && a < r; a++)
            coord[a] = (start[a] - s->origin[s->axis[g] + a]) / s->block[s->axis[g] + a];
        lo[g] = start && unravel_matches(s->rank, coord, s->grid + s->axis[g], r);
    }
    allreduce(s, lo, W, MPI_LONG_LONG, MPI_MIN);
    for (int g = 0; g < W; g++)
        s->regular[g] = s->regular[g] && lo[g];
    free(lo), free(hi), free(box);
    return 1;
}

/* --- irregular selections: gathered to rank 0 --------------------------------------------- */

static int gather_irregular(struct session *s, const struct iot_capture *c)
{
    size_t n = 0;
    for (int g = 0; g < s->nwrites; g++) {
        const long long *sel = selection(s, c, g);
        if (!s->regular[g])
            n += sel ? 1 + (size_t)(sel[0] * DESC(rank_of(c->datasets, s, g))) : 1;
    }
    long long *mine = malloc((n + 1) * sizeof *mine), *p = mine;
    if (!all_ok(s, mine != NULL && n < (1u << 30))) {
        free(mine);
        return 0;
    }
    for (int g = 0; g < s->nwrites; g++) {
        const long long *sel = selection(s, c, g);
        size_t len = sel ? 1 + (size_t)(sel[0] * DESC(rank_of(c->datasets, s, g))) : 1;
        if (s->regular[g])
            continue;
        if (sel)
            memcpy(p, sel, len * sizeof *p);
        else
            *p = 0;
        p += len;
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

/* --- the JSON line (rank 0) ----------------------------------------------------------------- */

/* The record is built in a plain growing buffer, numbers by hand: it holds a few numbers per
 * call, and stdio (even on a memory stream) costs more than a small write's whole capture. */
struct buf {
    char *s;
    size_t len, cap;
    int failed;
};

static inline void put_bytes(struct buf *b, const char *text, size_t n)
{
    if (b->failed || !iot_capture_room(&b->s, &b->cap, b->len + n + 1, 1)) {
        b->failed = 1;
        return;
    }
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static inline void put(struct buf *b, const char *text)
{
    put_bytes(b, text, strlen(text));
}

#define PUT(b, literal) put_bytes(b, literal, sizeof literal - 1)

/* Room for n more bytes at the end: where to write them, or NULL. */
static inline char *reserve(struct buf *b, size_t n)
{
    if (b->failed || !iot_capture_room(&b->s, &b->cap, b->len + n + 1, 1)) {
        b->failed = 1;
        return NULL;
    }
    return b->s + b->len;
}

static inline void wrote(struct buf *b, char *end)
{
    b->len = (size_t)(end - b->s);
    *end = '\0';
}

#define INT_CHARS 21

static char *format_int(char *p, long long v)
{
    char digits[INT_CHARS];
    int n = 0;
    unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = digits[--n];
    return p;
}

static void put_int(struct buf *b, long long v)
{
    char *p = reserve(b, INT_CHARS);
    if (p)
        wrote(b, format_int(p, v));
}

/* Seconds to the microsecond. */
static void put_seconds(struct buf *b, double seconds)
{
    long long us = (long long)(seconds * 1e6 + (seconds < 0 ? -0.5 : 0.5));
    char *p = reserve(b, INT_CHARS + 8);
    if (!p)
        return;
    if (us < 0) {
        *p++ = '-';
        us = -us;
    }
    p = format_int(p, us / 1000000);
    *p++ = '.';
    for (int i = 5, f = (int)(us % 1000000); i >= 0; i--, f /= 10)
        p[i] = (char)('0' + f % 10);
    wrote(b, p + 6);
}

/* A JSON string: names that need no escaping are copied, the others go through json_string. */
static void put_string(struct buf *b, const char *text)
{
    const char *p = text;
    while (*p && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    if (!*p) {
        PUT(b, "\"");
        put_bytes(b, text, (size_t)(p - text));
        PUT(b, "\"");
        return;
    }
    char *escaped = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&escaped, &n);
    if (out) {
        json_string(out, text);
        fclose(out);
        put_bytes(b, escaped, n);
    }
    free(escaped);
}

static void write_list(struct buf *out, const long long *v, int n)
{
    char *p = reserve(out, 2 + (size_t)n * (INT_CHARS + 2));
    if (!p)
        return;
    *p++ = '[';
    for (int i = 0; i < n; i++) {
        if (i)
            *p++ = ',', *p++ = ' ';
        p = format_int(p, v[i]);
    }
    *p++ = ']';
    wrote(out, p);
}

static void write_hsizes(struct buf *out, const hsize_t *v, int n, int unlimited_as_null)
{
    PUT(out, "[");
    for (int i = 0; i < n; i++) {
        put(out, i ? ", " : "");
        if (unlimited_as_null && v[i] == H5S_UNLIMITED)
            PUT(out, "null");
        else
            put_int(out, (long long)v[i]);
    }
    PUT(out, "]");
}

static int all_equal(const long long *v, int n, long long value)
{
    for (int i = 0; i < n; i++)
        if (v[i] != value)
            return 0;
    return 1;
}

struct run {
    int first, n, open;
    const long long *h;        /* the first writer's hyperslab */
    long long step[MAXR];
};

static void write_run(struct buf *out, const struct run *run, int rank, int *count)
{
    const long long *h = run->h, ranks[2] = {run->first, run->n};
    put(out, (*count)++ ? ", {\"ranks\": " : "{\"ranks\": ");
    write_list(out, ranks, 2);
    PUT(out, ", \"start\": ");
    write_list(out, h, rank);
    if (run->n > 1 && !all_equal(run->step, rank, 0)) {
        PUT(out, ", \"start_step\": ");
        write_list(out, run->step, rank);
    }
    PUT(out, ", \"count\": ");
    write_list(out, h + 2 * rank, rank);
    if (!all_equal(h + rank, rank, 1)) {
        PUT(out, ", \"stride\": ");
        write_list(out, h + rank, rank);
    }
    if (!all_equal(h + 3 * rank, rank, 1)) {
        PUT(out, ", \"block\": ");
        write_list(out, h + 3 * rank, rank);
    }
    PUT(out, "}");
}

/* Extends the run with writer w's single hyperslab h if it continues it. */
static int extends(struct run *run, int w, const long long *h, int rank)
{
    if (!run->open || w != run->first + run->n
        || memcmp(h + rank, run->h + rank, 3 * (size_t)rank * sizeof *h) != 0)
        return 0;
    for (int a = 0; a < rank; a++)
        if (run->n > 1 && h[a] - run->h[a] != run->n * run->step[a])
            return 0;
    if (run->n == 1)
        for (int a = 0; a < rank; a++)
            run->step[a] = h[a] - run->h[a];
    run->n++;
    return 1;
}

/* The runs of one irregular write; cursor[w] walks writer w's gathered selections. */
static void write_runs(struct buf *out, const long long **cursor, int writers, int rank)
{
    struct run run = {0, 0, 0, NULL, {0}};
    int count = 0;
    PUT(out, "{\"runs\": [");
    for (int w = 0; w < writers; w++) {
        long long n = *cursor[w];
        const long long *h = cursor[w] + 1;
        cursor[w] += 1 + n * DESC(rank);
        if (n == 1 && extends(&run, w, h, rank))
            continue;
        if (run.open)
            write_run(out, &run, rank, &count);
        run.open = 0;
        for (long long i = 0; i < n; i++, h += DESC(rank)) {
            run = (struct run){w, 1, 1, h, {0}};
            if (i + 1 < n)
                write_run(out, &run, rank, &count), run.open = 0;
        }
    }
    if (run.open)
        write_run(out, &run, rank, &count);
    PUT(out, "]}");
}

static void write_regular(struct buf *out, const struct session *s, int g, int rank)
{
    size_t x = s->axis[g];
    PUT(out, "{\"grid\": ");
    write_list(out, s->grid + x, rank);
    PUT(out, ", \"block\": ");
    write_list(out, s->block + x, rank);
    if (!all_equal(s->origin + x, rank, 0)) {
        PUT(out, ", \"origin\": ");
        write_list(out, s->origin + x, rank);
    }
    PUT(out, "}");
}

static void write_datasets(struct buf *out, const struct iot_capture *c)
{
    static const char *FILL[] = {[H5D_FILL_TIME_ALLOC] = "alloc", [H5D_FILL_TIME_NEVER] = "never",
                                 [H5D_FILL_TIME_IFSET] = "ifset"};
    static const char *ALLOC[] = {[H5D_ALLOC_TIME_DEFAULT] = "default",
                                  [H5D_ALLOC_TIME_EARLY] = "early", [H5D_ALLOC_TIME_LATE] = "late",
                                  [H5D_ALLOC_TIME_INCR] = "incr"};
    PUT(out, ", \"datasets\": [");
    for (int d = 0; d < c->ndatasets; d++) {
        const struct cap_dataset *cd = &c->datasets[d];
        put(out, d ? ", {\"name\": " : "{\"name\": ");
        put_string(out, cd->name);
        PUT(out, ", \"element_bytes\": ");
        put_int(out, cd->element_bytes);
        PUT(out, ", \"dims\": ");
        write_hsizes(out, cd->dims, cd->rank, 0);
        PUT(out, ", \"max_dims\": ");
        write_hsizes(out, cd->max_dims, cd->rank, 1);
        PUT(out, ", \"layout\": \"");
        put(out, iot_layout_name(cd->creation.layout));
        PUT(out, "\", \"chunk_dims\": ");
        if (cd->creation.layout == H5D_CHUNKED && cd->creation.chunk_rank > 0)
            write_hsizes(out, cd->creation.chunk, cd->creation.chunk_rank, 0);
        else
            PUT(out, "null");
        PUT(out, ", \"fill_time\": \"");
        H5D_fill_time_t fill = cd->creation.fill;
        H5D_alloc_time_t alloc = cd->creation.alloc;
        put(out, fill >= 0 && fill <= H5D_FILL_TIME_IFSET ? FILL[fill] : "ifset");
        PUT(out, "\", \"alloc_time\": \"");
        put(out, alloc >= 0 && alloc <= H5D_ALLOC_TIME_INCR ? ALLOC[alloc] : "default");
        PUT(out, "\", \"fill_value\": \"");
        put(out, iot_fill_value_name(cd->creation.fill_value));
        PUT(out, "\"}");
    }
    PUT(out, "]");
}

static const struct session *order_of;

static int by_start(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double sx = order_of->mins[2 + x], sy = order_of->mins[2 + y];
    return sx < sy ? -1 : sx > sy ? 1 : x - y;
}

/* Write j (in time order) repeats write i shifted by `step`: the same dataset, transfer, grid
 * and block, every writer's block moved by the same offset. */
static int repeats(const struct session *s, int g, int h, int rank, const long long *step)
{
    int C = s->ncalls;
    if (s->dataset[h] != s->dataset[g] || !s->regular[h]
        || (s->maxs[2 + 2 * C + h] > 0) != (s->maxs[2 + 2 * C + g] > 0))
        return 0;
    size_t x = s->axis[g], y = s->axis[h];
    for (int a = 0; a < rank; a++)
        if (s->grid[y + a] != s->grid[x + a] || s->block[y + a] != s->block[x + a]
            || s->origin[y + a] != s->origin[x + a] + step[a])
            return 0;
    return 1;
}

/* A loop writing one slab after another is one call repeated: the writes after order[i] that
 * repeat it with a constant shift of the origin become its `repeat` (WORKLOAD.md), so that the
 * record does not grow with the loop's length. How many writes it took in. */
static int write_repeat(struct buf *out, const struct session *s, const int *order, int i,
                        int rank)
{
    int C = s->ncalls, g = order[i], n = 0;
    if (!s->regular[g] || i + 1 >= C || s->dataset[order[i + 1]] != s->dataset[g]
        || !s->regular[order[i + 1]])
        return 0;
    long long step[MAXR];
    for (int a = 0; a < rank; a++)
        step[a] = s->origin[s->axis[order[i + 1]] + a] - s->origin[s->axis[g] + a];
    double compute = 0;
    while (i + n + 1 < C && repeats(s, order[i + n], order[i + n + 1], rank, step))
        compute += s->maxs[2 + C + order[i + n + 1]], n++;
    if (n == 0)
        return 0;
    PUT(out, ", \"repeat\": {\"times\": ");
    put_int(out, n + 1);
    PUT(out, ", \"origin_step\": ");
    write_list(out, step, rank);
    PUT(out, ", \"compute_between_s\": ");
    put_seconds(out, compute / n);
    PUT(out, "}");
    return n;
}

static int write_calls(struct buf *out, const struct session *s, const struct iot_capture *c)
{
    int C = s->ncalls, *order = malloc(((size_t)C + 1) * sizeof *order);
    const long long **cursor = malloc((size_t)s->size * sizeof *cursor);
    if (!order || !cursor) {
        free(order), free(cursor);
        return 0;
    }
    for (int g = 0; g < C; g++)
        order[g] = g;
    order_of = s;
    int sorted = 1;
    for (int g = 1; g < C && sorted; g++)
        sorted = by_start(&order[g - 1], &order[g]) < 0;
    if (!sorted)
        qsort(order, (size_t)C, sizeof *order, by_start);
    /* each writer's irregular selections follow in global write order */
    for (int w = 0, off = 0; w < s->size; w++) {
        cursor[w] = s->gathered + off;
        off += s->gathered_len ? s->gathered_len[w] : 0;
    }
    /* the cursors walk the writes in global order, the calls are written in time order */
    struct buf sels = {NULL, 0, 0, 0};
    size_t *at = malloc(((size_t)s->nwrites + 1) * sizeof *at);
    for (int g = 0; at && g < s->nwrites; g++) {
        int rank = rank_of(c->datasets, s, g);
        at[g] = sels.len;
        if (!s->regular[g])   /* regular ones are written as they come: most fold into repeats */
            write_runs(&sels, cursor, s->size, rank);
    }
    if (at)
        at[s->nwrites] = sels.len;
    struct buf names = {NULL, 0, 0, 0};   /* as JSON strings, each once */
    size_t *name_at = malloc(((size_t)s->nd + 1) * sizeof *name_at);
    for (int d = 0; name_at && d < s->nd; d++) {
        name_at[d] = names.len;
        put_string(&names, c->datasets[d].name);
    }
    if (name_at)
        name_at[s->nd] = names.len;
    int ok = at && name_at && !sels.failed && !names.failed;
    PUT(out, ", \"calls\": [");
    for (int i = 0; ok && i < C; i++) {
        int g = order[i];
        put(out, i ? ", " : "");
        if (s->dataset[g] < 0) {
            PUT(out, "{\"flush\": true, \"compute_before_s\": ");
            put_seconds(out, s->maxs[2 + C + g]);
            PUT(out, "}");
            continue;
        }
        PUT(out, "{\"write\": [");
        int d = s->dataset[g];
        put_bytes(out, names.s + name_at[d], name_at[d + 1] - name_at[d]);
        put(out, s->maxs[2 + 2 * C + g] > 0 ? "], \"transfer\": \"collective\""
                                            : "], \"transfer\": \"independent\"");
        PUT(out, ", \"compute_before_s\": ");
        put_seconds(out, s->maxs[2 + C + g]);
        PUT(out, ", \"selections\": [");
        int rank = rank_of(c->datasets, s, g);
        if (s->regular[g])
            write_regular(out, s, g, rank);
        else
            put_bytes(out, sels.s + at[g], at[g + 1] - at[g]);
        PUT(out, "]");
        i += write_repeat(out, s, order, i, rank);
        PUT(out, "}");
    }
    PUT(out, "]");
    free(sels.s), free(at), free(names.s), free(name_at), free(order), free(cursor);
    return ok;
}

static void world(int *rank, int *size)
{
    int initialized = 0, finalized = 0;
    *rank = 0, *size = 1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Comm_rank(MPI_COMM_WORLD, rank);
        MPI_Comm_size(MPI_COMM_WORLD, size);
    }
}

/* A FILE-based writer's text (JSON strings, lists), appended to the buffer. */
static void put_stream(struct buf *b, void (*write)(FILE *, void *), void *arg)
{
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    if (!out) {
        b->failed = 1;
        return;
    }
    write(out, arg);
    fclose(out);
    put_bytes(b, text, n);
    free(text);
}

static void list_writer(FILE *out, void *list)
{
    iot_list_write(out, list);
}

static int write_record(const struct session *s, struct iot_file *file, struct iot_capture *c,
                        const char *path)
{
    int world_rank, world_size;
    struct buf out = {NULL, 0, 0, 0};
    world(&world_rank, &world_size);
    PUT(&out, "{\"iotwin_capture\": 1, \"file\": ");
    put_string(&out, file->name);
    PUT(&out, ", \"how\": \"");
    put(&out, file->how);
    PUT(&out, "\", \"comm_size\": ");
    put_int(&out, s->size);
    PUT(&out, ", \"world_rank\": ");
    put_int(&out, world_rank);
    PUT(&out, ", \"world_size\": ");
    put_int(&out, world_size);
    const char *times[] = {"t_open", "t_open_done", "t_close", "t_close_done"};
    const double values[] = {s->mins[0], s->maxs[0], s->mins[1], s->maxs[1]};
    for (int i = 0; i < 4; i++) {
        PUT(&out, ", \"");
        put(&out, times[i]);
        PUT(&out, "\": ");
        put_seconds(&out, values[i]);
    }
    PUT(&out, ", \"driver\": \"");
    put(&out, c->driver);
    PUT(&out, "\"");
    write_datasets(&out, c);
    int ok = write_calls(&out, s, c);
    PUT(&out, ", \"unsupported\": ");
    put_stream(&out, list_writer, &c->unsupported);
    PUT(&out, "}\n");
    ok = ok && !out.failed && iot_append_line(path, out.s, out.len) == 0;
    free(out.s);
    return ok;
}

void iot_capture_gather(struct iot_file *file, struct iot_capture *c, double close_start,
                        double close_end, const char *path)
{
    struct session s = {0};
    s.comm = file->mpio ? file->comm : MPI_COMM_NULL;
    s.size = 1;
    if (s.comm != MPI_COMM_NULL) {
        MPI_Comm_rank(s.comm, &s.rank);
        MPI_Comm_size(s.comm, &s.size);
    }
    const char *why = c->failed;
    if (!all_ok(&s, !c->failed))
        why = why ? why : "another rank's capture failed";
    else if (!count_calls(&s, c))
        why = "the ranks created different numbers of datasets";
    else if (!all_ok(&s, map_calls(&s, c)) || !reduce_times(&s, c, close_start, close_end)
             || !find_regular(&s, c) || !gather_irregular(&s, c))
        why = "out of memory";
    else if (s.rank == 0 && !write_record(&s, file, c, path))
        why = "could not write the capture file";
    if (why && (s.rank == 0 || c->failed))
        fprintf(stderr, "iotwin: capture of %s failed: %s (the program goes on)\n", file->name,
                why);
    session_free(&s);
}
