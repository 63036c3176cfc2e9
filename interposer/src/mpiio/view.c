#define _GNU_SOURCE
#include "mpiio/view.h"

#include <stdlib.h>
#include <string.h>

/* --- runs ------------------------------------------------------------------------------------ */

struct runs {
    long long *v;        /* offset, length pairs */
    size_t n, cap;
    const char *failed;
};

static void add_run(struct runs *r, long long offset, long long length)
{
    if (r->failed || length <= 0)
        return;
    if (r->n && r->v[2 * r->n - 2] + r->v[2 * r->n - 1] == offset) {
        r->v[2 * r->n - 1] += length;   /* continues the previous run */
        return;
    }
    if (r->n >= IOT_VIEW_MAX_RUNS) {
        r->failed = "the file view has more than 2^20 separate pieces";
        return;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        long long *more = realloc(r->v, 2 * cap * sizeof *more);
        if (!more) {
            r->failed = "out of memory";
            return;
        }
        r->v = more, r->cap = cap;
    }
    r->v[2 * r->n] = offset, r->v[2 * r->n + 1] = length;
    r->n++;
}

/* --- datatypes ------------------------------------------------------------------------------- */

struct contents {
    int combiner, ni, na, nd;
    int *ints;
    MPI_Aint *addrs;
    MPI_Datatype *types;
};

static int read_contents(MPI_Datatype type, struct contents *c)
{
    memset(c, 0, sizeof *c);
    MPI_Type_get_envelope(type, &c->ni, &c->na, &c->nd, &c->combiner);
    if (c->combiner == MPI_COMBINER_NAMED)
        return 0;
    c->ints = malloc(((size_t)c->ni + 1) * sizeof *c->ints);
    c->addrs = malloc(((size_t)c->na + 1) * sizeof *c->addrs);
    c->types = malloc(((size_t)c->nd + 1) * sizeof *c->types);
    if (!c->ints || !c->addrs || !c->types)
        return -1;
    MPI_Type_get_contents(type, c->ni, c->na, c->nd, c->ints, c->addrs, c->types);
    return 0;
}

static void free_contents(struct contents *c)
{
    int combiner = 0, ni = 0, na = 0, nd = 0;
    for (int i = 0; c->types && i < c->nd; i++) {
        MPI_Type_get_envelope(c->types[i], &ni, &na, &nd, &combiner);
        if (combiner != MPI_COMBINER_NAMED)   /* get_contents returned a new handle */
            MPI_Type_free(&c->types[i]);
    }
    free(c->ints), free(c->addrs), free(c->types);
}

static long long extent_of(MPI_Datatype type)
{
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(type, &lb, &extent);
    return (long long)extent;
}

static void flatten(MPI_Datatype type, long long base, struct runs *r);

/* `count` blocks of `blocklen` children (blocklens[i] if given), block i at base + displs[i]
 * bytes (+ i * stride if no displs): the child is flattened once, on its own (a run of it
 * continuing the previous one is merged into it), and placed copy by copy. */
static void flatten_blocks(MPI_Datatype child, long long base, int count, const int *blocklens,
                           int blocklen, const long long *displs, long long stride,
                           struct runs *r)
{
    struct runs one = {0};
    long long extent = extent_of(child);
    flatten(child, 0, &one);
    if (one.failed)
        r->failed = one.failed;
    for (int i = 0; i < count && !r->failed; i++) {
        long long at = base + (displs ? displs[i] : i * stride);
        for (int k = 0; k < (blocklens ? blocklens[i] : blocklen) && !r->failed; k++)
            for (size_t j = 0; j < one.n; j++)
                add_run(r, at + k * extent + one.v[2 * j], one.v[2 * j + 1]);
    }
    free(one.v);
}

/* Displacements of (h)indexed types in bytes: in child extents for the non-h ones. */
static long long *displacements(const struct contents *c, int count, const int *in_extents,
                                long long extent)
{
    long long *d = malloc(((size_t)count + 1) * sizeof *d);
    for (int i = 0; d && i < count; i++)
        d[i] = in_extents ? in_extents[i] * extent : (long long)c->addrs[i];
    return d;
}

static void flatten_subarray(const struct contents *c, long long base, struct runs *r);

/* (H)indexed and (h)indexed-block types: blocks at listed displacements (in child extents for
 * the non-h ones, in bytes for the h ones). */
static void flatten_indexed(const struct contents *c, long long base, struct runs *r)
{
    const int *in = c->ints;
    long long extent = extent_of(c->types[0]), *d = NULL;
    int block = c->combiner == MPI_COMBINER_INDEXED_BLOCK
                || c->combiner == MPI_COMBINER_HINDEXED_BLOCK;
    const int *in_extents = c->combiner == MPI_COMBINER_INDEXED ? in + 1 + in[0]
                          : c->combiner == MPI_COMBINER_INDEXED_BLOCK ? in + 2 : NULL;
    if (!(d = displacements(c, in[0], in_extents, extent))) {
        r->failed = "out of memory";
        return;
    }
    flatten_blocks(c->types[0], base, in[0], block ? NULL : in + 1, block ? in[1] : 0, d, 0, r);
    free(d);
}

static void flatten_derived(const struct contents *c, long long base, struct runs *r)
{
    const int *in = c->ints;
    long long extent = c->nd ? extent_of(c->types[0]) : 0;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        flatten(c->types[0], base, r);
        return;
    case MPI_COMBINER_CONTIGUOUS:
        flatten_blocks(c->types[0], base, 1, NULL, in[0], NULL, 0, r);
        return;
    case MPI_COMBINER_VECTOR:
        flatten_blocks(c->types[0], base, in[0], NULL, in[1], NULL, in[2] * extent, r);
        return;
    case MPI_COMBINER_HVECTOR:
        flatten_blocks(c->types[0], base, in[0], NULL, in[1], NULL, (long long)c->addrs[0], r);
        return;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        flatten_indexed(c, base, r);
        return;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0] && !r->failed; i++)
            flatten_blocks(c->types[i], base + (long long)c->addrs[i], 1, NULL, in[1 + i], NULL,
                           0, r);
        return;
    case MPI_COMBINER_SUBARRAY:
        flatten_subarray(c, base, r);
        return;
    default:
        r->failed = "the file view's datatype is a darray or another kind the capture does not "
                    "read";
    }
}

static void flatten(MPI_Datatype type, long long base, struct runs *r)
{
    struct contents c;
    if (r->failed)
        return;
    if (read_contents(type, &c) != 0)
        r->failed = "out of memory";
    else if (c.combiner == MPI_COMBINER_NAMED) {
        int size = 0;
        MPI_Type_size(type, &size);
        add_run(r, base, size);
    } else
        flatten_derived(&c, base, r);
    free_contents(&c);
}

/* --- subarrays ------------------------------------------------------------------------------- */

/* ints: ndims, sizes[n], subsizes[n], starts[n], order; into C order. */
static int subarray_shape(const struct contents *c, struct iot_view *v)
{
    int n = c->ints[0], fortran = c->ints[1 + 3 * n] == MPI_ORDER_FORTRAN;
    if (n < 1 || n > IOT_VIEW_MAX_AXES)
        return -1;
    v->ndims = n;
    for (int a = 0; a < n; a++) {
        int from = fortran ? n - 1 - a : a;
        v->sizes[a] = c->ints[1 + from];
        v->subsizes[a] = c->ints[1 + n + from];
        v->starts[a] = c->ints[1 + 2 * n + from];
    }
    return 0;
}

/* The rows (last axis) of the subarray block, in C order, as runs. */
static void subarray_rows(const struct iot_view *v, long long base, struct runs *r)
{
    int n = v->ndims;
    long long index[IOT_VIEW_MAX_AXES] = {0}, rows = 1;
    for (int a = 0; a + 1 < n; a++)
        rows *= v->subsizes[a];
    for (long long k = 0; k < rows && !r->failed; k++) {
        long long offset = 0;
        for (int a = 0; a < n; a++)   /* row-major offset of (starts + index) */
            offset = offset * v->sizes[a] + v->starts[a] + index[a];
        add_run(r, base + offset * v->elem, v->subsizes[n - 1] * v->elem);
        for (int a = n - 2; a >= 0 && ++index[a] == v->subsizes[a]; a--)
            index[a] = 0;
    }
}

/* A type's extent if its data are that many contiguous bytes from its start, else -1. */
static long long contiguous_extent(MPI_Datatype type)
{
    struct runs runs = {0};
    long long extent = extent_of(type);
    flatten(type, 0, &runs);
    int contiguous = !runs.failed && runs.n == 1 && runs.v[0] == 0 && runs.v[1] == extent;
    free(runs.v);
    return contiguous ? extent : -1;
}

static void flatten_subarray(const struct contents *c, long long base, struct runs *r)
{
    struct iot_view shape = {0};
    shape.elem = contiguous_extent(c->types[0]);
    if (subarray_shape(c, &shape) != 0 || shape.elem < 0) {
        r->failed = "the file view is a subarray of a non-contiguous element";
        return;
    }
    subarray_rows(&shape, base, r);
}

/* --- views ----------------------------------------------------------------------------------- */

static void keep_runs(struct iot_view *v, struct runs *r)
{
    v->runs = r->v;
    v->nruns = r->n;
    v->before = malloc((r->n + 1) * sizeof *v->before);
    if (!v->before) {
        v->failed = "out of memory";
        return;
    }
    v->before[0] = 0;
    for (size_t i = 0; i < r->n; i++)
        v->before[i + 1] = v->before[i] + r->v[2 * i + 1];
    if (v->before[r->n] != v->size)
        v->failed = "the file view's datatype was read wrong (its pieces do not add up to its "
                    "size)";
}

/* A subarray filetype (possibly behind MPI_Type_dup) of a contiguous element: 1 and its shape. */
static int read_subarray(MPI_Datatype filetype, struct iot_view *v)
{
    struct contents c;
    int found = 0;
    if (read_contents(filetype, &c) != 0) {
        free_contents(&c);
        return 0;
    }
    if (c.combiner == MPI_COMBINER_DUP)
        found = read_subarray(c.types[0], v);
    else if (c.combiner == MPI_COMBINER_SUBARRAY)
        found = (v->elem = contiguous_extent(c.types[0])) > 0 && subarray_shape(&c, v) == 0;
    free_contents(&c);
    return found;
}

/* The view takes the runs flattened into r, or r's failure: 0, or -1 when it failed. */
static int keep_or_fail(struct iot_view *v, struct runs *r)
{
    if (r->failed) {
        v->failed = r->failed;
        free(r->v);
        return -1;
    }
    keep_runs(v, r);
    return v->failed ? -1 : 0;
}

int iot_view_set(struct iot_view *v, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype)
{
    int size = 0;
    memset(v, 0, sizeof *v);
    v->disp = (long long)disp;
    MPI_Type_size(etype, &size);
    v->etype_size = size;
    MPI_Type_size(filetype, &size);
    v->size = size;
    v->extent = extent_of(filetype);
    if ((v->subarray = read_subarray(filetype, v)))
        return 0;
    struct runs r = {0};
    flatten(filetype, 0, &r);
    return keep_or_fail(v, &r);
}

void iot_view_default(struct iot_view *v)
{
    iot_view_set(v, 0, MPI_BYTE, MPI_BYTE);
}

void iot_view_clear(struct iot_view *v)
{
    free(v->runs);
    free(v->before);
    v->runs = v->before = NULL;
    v->nruns = 0;
}

int iot_view_flatten(struct iot_view *v)
{
    struct runs r = {0};
    if (v->runs || v->failed)
        return v->failed ? -1 : 0;
    subarray_rows(v, 0, &r);
    return keep_or_fail(v, &r);
}

/* The run holding data byte q of one filetype instance (before[i] <= q < before[i + 1]). */
static size_t run_at(const struct iot_view *v, long long q)
{
    size_t lo = 0, hi = v->nruns;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (v->before[mid] <= q)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

long long iot_view_offset(const struct iot_view *v, long long p)
{
    if (v->size <= 0 || !v->nruns)
        return -1;
    long long tile = p / v->size, q = p % v->size;
    size_t i = run_at(v, q);
    return v->disp + tile * v->extent + v->runs[2 * i] + q - v->before[i];
}

/* 1 if the view's filetype is one run filling its extent (MPI_BYTE of the default view, any
 * contiguous type): stream byte p is file byte disp + p, without a tile-by-tile walk, which on
 * the default view is a tile a byte. */
static int dense(const struct iot_view *v)
{
    return v->nruns == 1 && v->runs[0] == 0 && v->runs[1] == v->size && v->size == v->extent;
}

int iot_view_runs(const struct iot_view *v, long long from, long long to,
                  int (*emit)(long long offset, long long length, void *arg), void *arg)
{
    long long pending = -1, pending_len = 0;
    if (v->size <= 0 || !v->nruns)
        return from < to ? -1 : 0;
    if (dense(v))
        return from < to ? emit(v->disp + from, to - from, arg) : 0;
    for (long long p = from; p < to;) {
        long long tile = p / v->size, q = p % v->size;
        size_t i = run_at(v, q);
        long long within = q - v->before[i], left = v->runs[2 * i + 1] - within;
        long long length = left < to - p ? left : to - p;
        if (length <= 0)
            return -1;
        long long offset = v->disp + tile * v->extent + v->runs[2 * i] + within;
        if (pending >= 0 && pending + pending_len == offset)
            pending_len += length;
        else {
            if (pending >= 0 && emit(pending, pending_len, arg) != 0)
                return -1;
            pending = offset, pending_len = length;
        }
        p += length;
    }
    return pending >= 0 ? emit(pending, pending_len, arg) : 0;
}
