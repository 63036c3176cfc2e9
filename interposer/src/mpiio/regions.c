/* The regions of an MPI-IO file, agreed by all its ranks (mpiio/capture.h). */
#include <stdlib.h>
#include <string.h>

#include "mpiio/state.h"

#define AXES IOT_VIEW_MAX_AXES
#define DESC (4 + AXES)   /* a view as the ranks compare it: subarray, disp, elem, ndims, sizes */

static void allreduce(MPI_Comm comm, void *buf, int n, MPI_Datatype type, MPI_Op op)
{
    if (comm != MPI_COMM_NULL && n > 0)
        MPI_Allreduce(MPI_IN_PLACE, buf, n, type, op, comm);
}

/* 1 if every write through view k covers whole elements. */
static int whole_elements(const struct iot_mpiio_file *m, int k, long long elem)
{
    for (int i = 0; i < m->nops; i++)
        if (m->ops[i].view == k && (m->ops[i].from % elem || m->ops[i].to % elem))
            return 0;
    return 1;
}

/* Tiles of view k this rank wrote: 1 + the last one (0: none). */
static long long tiles_written(const struct iot_mpiio_file *m, int k)
{
    const struct iot_view *v = &m->views[k];
    long long tiles = 0;
    for (int i = 0; i < m->nops; i++)
        if (m->ops[i].view == k && m->ops[i].to > m->ops[i].from && v->size > 0) {
            long long last = (m->ops[i].to - 1) / v->size + 1;
            tiles = last > tiles ? last : tiles;
        }
    return tiles;
}

static void describe(const struct iot_mpiio_file *m, int k, long long *d)
{
    const struct iot_view *v = &m->views[k];
    memset(d, 0, DESC * sizeof *d);
    d[0] = v->subarray && !v->failed && whole_elements(m, k, v->elem);
    if (!d[0])
        return;
    d[1] = v->disp, d[2] = v->elem, d[3] = v->ndims;
    memcpy(d + 4, v->sizes, (size_t)v->ndims * sizeof *d);
}

/* Round 1 (views per rank) and 2 (each view: described alike on every rank? its tiles):
 * which views are common subarrays; their tiles in tiles[k]. 0 if the ranks differ. */
static int common_subarrays(MPI_Comm comm, const struct iot_mpiio_file *m, int *subarray,
                            long long *tiles)
{
    int n = m->nviews, count[2] = {n, -n};
    allreduce(comm, count, 2, MPI_INT, MPI_MIN);
    if (count[0] != -count[1])
        return 0;
    size_t len = (size_t)n * (2 * DESC + 1);
    long long *buf = malloc((len + 1) * sizeof *buf);
    int ok = buf != NULL;
    allreduce(comm, &ok, 1, MPI_INT, MPI_MIN);
    if (!ok) {
        free(buf);
        return 0;
    }
    for (int k = 0; k < n; k++) {   /* [d, -d, -tiles]: one MIN gives min, max and max tiles */
        long long *d = buf + (size_t)k * (2 * DESC + 1);
        describe(m, k, d);
        for (int i = 0; i < DESC; i++)
            d[DESC + i] = -d[i];
        d[2 * DESC] = -tiles_written(m, k);
    }
    allreduce(comm, buf, (int)len, MPI_LONG_LONG, MPI_MIN);
    for (int k = 0; k < n; k++) {
        const long long *d = buf + (size_t)k * (2 * DESC + 1);
        subarray[k] = d[0] == 1;
        for (int i = 0; i < DESC; i++)
            subarray[k] &= d[i] == -d[DESC + i];
        tiles[k] = -d[2 * DESC];
        subarray[k] &= tiles[k] > 0;
    }
    free(buf);
    return 1;
}

static int same_region(const struct iot_view *a, const struct iot_view *b)
{
    return a->disp == b->disp && a->elem == b->elem && a->ndims == b->ndims
        && memcmp(a->sizes, b->sizes, (size_t)a->ndims * sizeof *a->sizes) == 0;
}

static int by_offset(const void *x, const void *y)
{
    const struct iot_region *a = x, *b = y;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The subarray regions, views of one global array sharing one; overlapping ones dropped (their
 * views' writes become bytes). */
static void subarray_regions(struct iot_regions *out, const struct iot_mpiio_file *m,
                             const int *subarray, const long long *tiles)
{
    for (int k = 0; k < m->nviews; k++) {
        const struct iot_view *v = &m->views[k];
        int j = 0;
        if (!subarray[k])
            continue;
        while (j < out->n && !same_region(&m->views[out->r[j].view], v))
            j++;
        if (j == out->n) {
            long long tile = v->elem;
            for (int a = 0; a < v->ndims; a++)
                tile *= v->sizes[a];
            out->r[out->n++] = (struct iot_region){v->disp, tile, k, v->elem, 0, 0};
        }
        out->r[j].tiles = tiles[k] > out->r[j].tiles ? tiles[k] : out->r[j].tiles;
    }
    for (int j = 0; j < out->n; j++)
        out->r[j].bytes *= out->r[j].tiles;   /* from one tile's bytes */
    qsort(out->r, (size_t)out->n, sizeof *out->r, by_offset);
    int kept = 0;
    for (int j = 0; j < out->n; j++)
        if (!kept || out->r[j].offset >= out->r[kept - 1].offset + out->r[kept - 1].bytes)
            out->r[kept++] = out->r[j];
    out->n = kept;
}

/* The byte regions: the gaps before, between and after the subarray regions (up to `end`). */
static void byte_regions(struct iot_regions *out, long long end)
{
    int n = out->n;
    long long at = 0;
    for (int j = 0; j <= n; j++) {
        long long until = j < n ? out->r[j].offset : end;
        if (until > at)
            out->r[out->n++] = (struct iot_region){at, until - at, -1, 1, 0, 0};
        if (j < n)
            at = out->r[j].offset + out->r[j].bytes;
    }
    qsort(out->r, (size_t)out->n, sizeof *out->r, by_offset);
}

/* Each view's subarray region (a common subarray whose region was kept), or -1. */
static void map_views(struct iot_regions *out, const struct iot_mpiio_file *m,
                      const int *subarray)
{
    for (int k = 0; k < m->nviews; k++) {
        out->subarray_of[k] = -1;
        for (int j = 0; subarray[k] && j < out->n; j++)
            if (out->r[j].view >= 0 && same_region(&m->views[out->r[j].view], &m->views[k]))
                out->subarray_of[k] = j;
    }
}

int iot_region_at(const struct iot_regions *regions, long long offset)
{
    for (int j = 0; j < regions->n; j++)
        if (regions->r[j].view < 0 && offset >= regions->r[j].offset
            && offset < regions->r[j].offset + regions->r[j].bytes)
            return j;
    return -1;
}

/* --- the byte writes ------------------------------------------------------------------------- */

struct extent {
    const struct iot_regions *regions;   /* subarray regions only (NULL: none to avoid) */
    long long end;                       /* the end of the last run */
    int crosses;                         /* a run lies in a subarray region */
};

static int note_run(long long offset, long long length, void *arg)
{
    struct extent *e = arg;
    for (int j = 0; e->regions && j < e->regions->n; j++) {
        const struct iot_region *r = &e->regions->r[j];
        if (offset < r->offset + r->bytes && offset + length > r->offset)
            e->crosses = 1;
    }
    e->end = offset + length > e->end ? offset + length : e->end;
    return 0;
}

/* The end of the writes (`views`: through views without a subarray region; all of them
 * flattened if NULL), and whether one of those lands in a subarray region of `regions`. */
static struct extent write_extent(const struct iot_mpiio_file *m, const int *subarray_of,
                                  const struct iot_regions *regions)
{
    struct extent e = {regions, 0, 0};
    for (int i = 0; i < m->nops; i++) {
        const struct iot_mpiio_op *op = &m->ops[i];
        struct iot_view *v = op->view >= 0 ? &m->views[op->view] : NULL;
        if (!v || op->to <= op->from || v->failed || (subarray_of && subarray_of[op->view] >= 0))
            continue;
        if (iot_view_flatten(v) == 0)   /* a subarray view the ranks did not share: its runs */
            iot_view_runs(v, op->from, op->to, note_run, &e);
    }
    return e;
}

/* Round 3: where the byte writes end, and whether one lands in a subarray region (then a
 * fourth: where all writes end, as bytes). The end of the file's byte regions, or -1 for a
 * file of bytes alone ending there (as -1 - end). */
static long long byte_end(MPI_Comm comm, const struct iot_mpiio_file *m,
                          const struct iot_regions *regions)
{
    struct extent bytes = write_extent(m, regions->subarray_of, regions);
    long long values[2] = {bytes.end, bytes.crosses};
    allreduce(comm, values, 2, MPI_LONG_LONG, MPI_MAX);
    if (!values[1])
        return values[0];
    long long all = write_extent(m, NULL, NULL).end;
    allreduce(comm, &all, 1, MPI_LONG_LONG, MPI_MAX);
    return -1 - all;
}

void iot_regions_agree(struct iot_regions *out, MPI_Comm comm, const struct iot_mpiio_file *m,
                       const char **why)
{
    int n = m->nviews;
    int *subarray = calloc((size_t)n + 1, sizeof *subarray);
    long long *tiles = calloc((size_t)n + 1, sizeof *tiles);
    memset(out, 0, sizeof *out);
    out->r = calloc(2 * (size_t)n + 2, sizeof *out->r);
    out->subarray_of = calloc((size_t)n + 1, sizeof *out->subarray_of);
    out->nviews = n;
    int ok = subarray && tiles && out->r && out->subarray_of;
    allreduce(comm, &ok, 1, MPI_INT, MPI_MIN);
    *why = !ok ? "out of memory"
         : !common_subarrays(comm, m, subarray, tiles) ? "the ranks set different file views"
                                                      : NULL;
    if (!*why) {
        subarray_regions(out, m, subarray, tiles);
        map_views(out, m, subarray);
        long long end = byte_end(comm, m, out);
        if (end < 0) {   /* a byte write lands in a subarray region: the whole file as bytes */
            out->n = 0;
            memset(subarray, 0, (size_t)n * sizeof *subarray);
            end = -1 - end;
        }
        byte_regions(out, end);
        map_views(out, m, subarray);
    }
    free(subarray);
    free(tiles);
}

void iot_regions_clear(struct iot_regions *regions)
{
    free(regions->r);
    free(regions->subarray_of);
    memset(regions, 0, sizeof *regions);
}
