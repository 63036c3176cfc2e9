#define _GNU_SOURCE
#include "mpiio/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/types.h"
#include "mpiio/state.h"

void iot_mpiio_file_free(struct iot_mpiio_file *m)
{
    if (!m)
        return;
    for (int k = 0; k < m->nviews; k++)
        iot_view_clear(&m->views[k]);
    free(m->views);
    free(m->ops);
    free(m);
}

/* --- recording -------------------------------------------------------------------------------- */

static struct iot_mpiio_file *recording(const struct iot_file *file)
{
    struct iot_mpiio_file *m = file->state;
    return file->capture && m && !m->failed ? m : NULL;
}

static struct iot_view *add_view(struct iot_mpiio_file *m)
{
    if (!iot_room(&m->views, &m->view_cap, (size_t)m->nviews + 1, sizeof *m->views)) {
        m->failed = "out of memory";
        return NULL;
    }
    return &m->views[m->nviews++];
}

void iot_mpiio_capture_open(struct iot_file *file, double start, double end)
{
    if (!iot_capture_enabled())
        return;
    iot_capture_start(file, start, end);
    struct iot_mpiio_file *m = file->capture ? calloc(1, sizeof *m) : NULL;
    file->state = m;   /* the MPI-IO layer's state of the file: what its capture records */
    if (!m)
        return;
    struct iot_view *view = add_view(m);
    if (view)
        iot_view_default(view);
}

/* Which of the file's handles `fh` is: 0 its own, 1 this process's alone. */
static int handle_of(const struct iot_file *file, MPI_File fh)
{
    return fh != file->fh;
}

void iot_mpiio_capture_view(struct iot_file *file, MPI_File fh, MPI_Offset disp,
                            MPI_Datatype etype, MPI_Datatype filetype)
{
    struct iot_mpiio_file *m = recording(file);
    struct iot_view *view = m ? add_view(m) : NULL;
    if (!view)
        return;
    iot_view_set(view, disp, etype, filetype);
    m->current[handle_of(file, fh)] = m->nviews - 1;
}

long long iot_mpiio_etype_bytes(const struct iot_file *file, MPI_File fh)
{
    struct iot_mpiio_file *m = recording(file);
    return m && m->nviews ? m->views[m->current[handle_of(file, fh)]].etype_size : 0;
}

static struct iot_mpiio_op *add_op(struct iot_mpiio_file *m, double start, double end)
{
    if (!iot_room(&m->ops, &m->op_cap, (size_t)m->nops + 1, sizeof *m->ops)) {
        m->failed = "out of memory";
        return NULL;
    }
    struct iot_mpiio_op *op = &m->ops[m->nops++];
    memset(op, 0, sizeof *op);
    op->start = start, op->end = end;
    return op;
}

static struct iot_mpiio_op *add_write(struct iot_file *file, MPI_File fh, long long from,
                                      long long bytes, int collective, double start,
                                      double end)
{
    struct iot_mpiio_file *m = recording(file);
    if (!m || !m->nviews)
        return NULL;
    int view = m->current[handle_of(file, fh)];
    if (m->views[view].failed) {
        m->failed = m->views[view].failed;
        return NULL;
    }
    struct iot_mpiio_op *op = add_op(m, start, end);
    if (op)
        *op = (struct iot_mpiio_op){view, collective, 0, from, from + bytes, start, end};
    return op;
}

void iot_mpiio_capture_write(struct iot_file *file, MPI_File fh, long long from,
                             long long bytes, int collective, double start, double end)
{
    add_write(file, fh, from, bytes, collective, start, end);
}

void iot_mpiio_capture_ordered(struct iot_file *file, MPI_File fh, long long rank0_from,
                               long long bytes, double start, double end)
{
    struct iot_mpiio_op *op = add_write(file, fh, rank0_from, bytes, 1, start, end);
    if (op)
        op->ordered = 1;
}

void iot_mpiio_capture_flush(struct iot_file *file, double start, double end)
{
    struct iot_mpiio_file *m = recording(file);
    struct iot_mpiio_op *op = m ? add_op(m, start, end) : NULL;
    if (op)
        op->view = -1;
}

int iot_mpiio_capture_ops(const struct iot_file *file)
{
    struct iot_mpiio_file *m = recording(file);
    return m ? m->nops : 0;
}

void iot_mpiio_capture_completed(struct iot_file *file, int op, double end)
{
    struct iot_mpiio_file *m = recording(file);
    if (m && op < m->nops && m->ops[op].end < end)
        m->ops[op].end = end;
}

/* --- selections in a region ---------------------------------------------------------------- */

struct write_in_region {
    const struct iot_view *view;
    const struct iot_mpiio_op *op;
    const struct iot_region *region;
};

/* Boxes covering elements [lo, hi) (C order) of a block of extents sub[a..n-1] whose corner
 * is `origin`; start[0..a-1] already placed (one element along those axes). */
static int block_boxes(struct iot_capture *c, int n, const long long *sub, const hsize_t *origin,
                       hsize_t *start, int a, long long lo, long long hi)
{
    hsize_t count[IOT_VIEW_MAX_AXES];
    long long row = 1;
    int boxes = 0;
    if (lo >= hi)
        return 0;
    for (int b = a + 1; b < n; b++)
        row *= sub[b];
    long long first = lo / row, last = hi / row;   /* rows [first, last) whole, edges partial */
    if (lo % row) {
        start[a] = origin[a] + (hsize_t)first;
        int k = block_boxes(c, n, sub, origin, start, a + 1, lo % row,
                            first == last ? hi % row : row);
        if (k < 0 || first == last)
            return k;
        boxes += k, first++;
    }
    if (last > first) {
        for (int b = 0; b < n; b++) {
            count[b] = b < a ? 1 : b == a ? (hsize_t)(last - first) : (hsize_t)sub[b];
            if (b > a)
                start[b] = origin[b];
        }
        start[a] = origin[a] + (hsize_t)first;
        if (iot_capture_push_box(c, n, start, count) < 0)
            return -1;
        boxes++;
    }
    if (hi % row) {
        start[a] = origin[a] + (hsize_t)last;
        int k = block_boxes(c, n, sub, origin, start, a + 1, 0, hi % row);
        if (k < 0)
            return -1;
        boxes += k;
    }
    return boxes;
}

/* A write through a subarray view: per tile, its element range as boxes of the region's
 * global array (axis 0 grown by one array per tile). */
static int push_subarray(struct iot_capture *c, const struct cap_dataset *cd, const void *arg)
{
    const struct write_in_region *w = arg;
    const struct iot_view *v = w->view;
    long long per_tile = 1, e0 = w->op->from / v->elem, e1 = w->op->to / v->elem;
    hsize_t origin[IOT_VIEW_MAX_AXES], start[IOT_VIEW_MAX_AXES];
    int boxes = 0;
    (void)cd;
    for (int a = 0; a < v->ndims; a++)
        per_tile *= v->subsizes[a], origin[a] = (hsize_t)v->starts[a];
    for (long long t = e0 / per_tile; per_tile > 0 && t * per_tile < e1; t++) {
        long long lo = e0 - t * per_tile, hi = e1 - t * per_tile;
        origin[0] = (hsize_t)(v->starts[0] + t * v->sizes[0]);
        int k = block_boxes(c, v->ndims, v->subsizes, origin, start, 0, lo > 0 ? lo : 0,
                            hi < per_tile ? hi : per_tile);
        if (k < 0)
            return -1;
        boxes += k;
    }
    return boxes;
}

/* A write's runs in a byte region; equally spaced runs of one length are one strided
 * hyperslab (start, stride, count, block), as a strided view's are. */
struct byte_boxes {
    struct iot_capture *c;
    const struct iot_region *region;
    int boxes;
    hsize_t start, stride, count, block;   /* the hyperslab being extended (count 0: none) */
};

static int push_pending(struct byte_boxes *b)
{
    if (!b->count)
        return 0;
    b->boxes++;
    if (b->count == 1)
        return iot_capture_push_box(b->c, 1, &b->start, &b->block);
    return iot_capture_push_hyperslab(b->c, 1, &b->start, &b->stride, &b->count, &b->block);
}

static int push_run(long long offset, long long length, void *arg)
{
    struct byte_boxes *b = arg;
    if (offset < b->region->offset || offset + length > b->region->offset + b->region->bytes)
        return -1;
    hsize_t start = (hsize_t)(offset - b->region->offset), block = (hsize_t)length;
    if (b->count == 1 && block == b->block && start > b->start) {
        b->stride = start - b->start;
        b->count = 2;
        return 0;
    }
    if (b->count > 1 && block == b->block && start == b->start + b->count * b->stride) {
        b->count++;
        return 0;
    }
    if (push_pending(b) < 0)
        return -1;
    b->start = start, b->block = block, b->stride = 0, b->count = 1;
    return 0;
}

/* Any other write: its runs, one-dimensional boxes of its byte region. */
static int push_bytes(struct iot_capture *c, const struct cap_dataset *cd, const void *arg)
{
    const struct write_in_region *w = arg;
    struct byte_boxes b = {c, w->region, 0, 0, 0, 0, 0};
    (void)cd;
    if (iot_view_runs(w->view, w->op->from, w->op->to, push_run, &b) < 0 || push_pending(&b) < 0)
        return -1;
    return b.boxes;
}

/* --- at close -------------------------------------------------------------------------------- */

static void add_datasets(struct iot_file *file, struct iot_regions *regions,
                         const struct iot_mpiio_file *m)
{
    char name[64];
    hsize_t dims[IOT_VIEW_MAX_AXES];
    for (int j = 0; j < regions->n; j++) {
        struct iot_region *r = &regions->r[j];
        const struct iot_view *v = r->view >= 0 ? &m->views[r->view] : NULL;
        struct cap_dataset *cd = NULL;
        snprintf(name, sizeof name, "%s@%lld", v ? "subarray" : "bytes", r->offset);
        if (!(r->index = iot_capture_new_dataset(file, name, &cd)))
            return;
        for (int a = 0; a < (v ? v->ndims : 1); a++)
            dims[a] = (hsize_t)(v ? v->sizes[a] * (a == 0 ? r->tiles : 1) : r->bytes);
        iot_capture_set_shape(cd, v ? v->elem : 1, v ? v->ndims : 1, dims, NULL);
    }
}

/* The region a write's bytes go to (-1: none: an empty write through a byte view). */
static int region_of(const struct iot_regions *regions, const struct iot_mpiio_file *m,
                     const struct iot_mpiio_op *op)
{
    if (regions->subarray_of[op->view] >= 0)
        return regions->subarray_of[op->view];
    if (op->to <= op->from)
        return -1;
    return iot_region_at(regions, iot_view_offset(&m->views[op->view], op->from));
}

/* This rank's writes and syncs, in the order they happened, as the capture's calls. */
static void add_calls(struct iot_file *file, const struct iot_regions *regions,
                      const struct iot_mpiio_file *m)
{
    for (int i = 0; i < m->nops; i++) {
        const struct iot_mpiio_op *op = &m->ops[i];
        if (op->view < 0) {
            iot_capture_flush(file, op->start, op->end);
            continue;
        }
        int j = region_of(regions, m, op);
        if (j < 0)
            continue;
        struct write_in_region w = {&m->views[op->view], op, &regions->r[j]};
        iot_capture_write_to(file, regions->r[j].index, op->collective,
                             regions->r[j].view >= 0 ? push_subarray : push_bytes, &w,
                             op->start, op->end);
    }
}

/* The ordered writes' places (mpiio/state.h): rank 0's start plus the bytes of the lower
 * ranks, by MPI_Exscan over the file's ordered writes (the same number on every rank: they are
 * collective), ORDERED_BATCH at a time. */
#define ORDERED_BATCH 64

static int next_ordered(const struct iot_mpiio_file *m, int i)
{
    while (i < m->nops && !m->ops[i].ordered)
        i++;
    return i;
}

/* This rank's share of an ordered write in the prefix sum: rank 0's includes its start. */
static long long ordered_share(const struct iot_mpiio_file *m, int i, int rank)
{
    if (i >= m->nops)
        return 0;
    return rank == 0 ? m->ops[i].to : m->ops[i].to - m->ops[i].from;
}

static void place_ordered(MPI_Comm comm, struct iot_mpiio_file *m)
{
    long long mine[ORDERED_BATCH], below[ORDERED_BATCH], counts[2] = {0, 0};
    int rank = 0;
    if (comm == MPI_COMM_NULL)   /* one process: rank 0's start is its place */
        return;
    MPI_Comm_rank(comm, &rank);
    for (int i = next_ordered(m, 0); i < m->nops; i = next_ordered(m, i + 1))
        counts[0]++;
    counts[1] = -counts[0];
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_MAX, comm);
    if (counts[0] != -counts[1] && !m->failed)
        m->failed = "the ranks made different numbers of ordered writes";
    int filled = next_ordered(m, 0), placed = filled;
    for (long long done = 0; done < counts[0]; done += ORDERED_BATCH) {
        int n = counts[0] - done < ORDERED_BATCH ? (int)(counts[0] - done) : ORDERED_BATCH;
        for (int k = 0; k < n; k++, filled = next_ordered(m, filled + 1))
            mine[k] = ordered_share(m, filled, rank);
        MPI_Exscan(mine, below, n, MPI_LONG_LONG, MPI_SUM, comm);
        for (int k = 0; k < n; k++, placed = next_ordered(m, placed + 1))
            if (rank > 0 && placed < m->nops) {
                m->ops[placed].to += below[k] - m->ops[placed].from;
                m->ops[placed].from = below[k];
            }
    }
}

void iot_mpiio_capture_close(struct iot_file *file, double start, double end)
{
    static struct iot_mpiio_file none = {.failed = "out of memory at open"};
    struct iot_mpiio_file *m = file->state ? file->state : &none;
    struct iot_regions regions;
    const char *why = NULL;
    if (!iot_capture_enabled())
        return;
    place_ordered(file->comm, m);
    iot_regions_agree(&regions, file->comm, m, &why);
    if (file->capture && !file->capture->failed && (m->failed || why))
        file->capture->failed = m->failed ? m->failed : why;
    if (file->capture && !file->capture->failed) {
        add_datasets(file, &regions, m);
        add_calls(file, &regions, m);
    }
    iot_regions_clear(&regions);
    iot_capture_close(file, start, end);
}
