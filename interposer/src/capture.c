#define _GNU_SOURCE
#include "capture.h"
#include "capture_types.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "readback.h"
#include "report.h"

static const char *capture_path;

/* The last transfer list read, with its mode: applications pass the same list to many
 * writes, and reading a property costs as much as a small write's capture. It is read again
 * once a hooked H5Pset_dxpl_mpio changes it, or it is closed. */
static struct {
    hid_t id;
    int collective;
} xfer_seen = {-1, 0};

void iot_capture_plist_changed(hid_t plist)
{
    if (plist == xfer_seen.id)
        xfer_seen.id = -1;
}

void iot_capture_init(void)
{
    const char *path = getenv("IOTWIN_CAPTURE");
    capture_path = path && *path ? path : NULL;
}

int iot_capture_enabled(void)
{
    return capture_path != NULL;
}

double iot_capture_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double iot_capture_epoch_of(double monotonic)
{
    static double offset;   /* realtime - monotonic, once: writes are timed by the hooks' clock */
    if (offset == 0) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        offset = iot_capture_clock() - ((double)t.tv_sec + 1e-9 * (double)t.tv_nsec);
    }
    return monotonic + offset;
}

int iot_capture_grow(void *items, size_t *cap, size_t need, size_t size)
{
    void **p = items;
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *bigger = realloc(*p, n * size);
    if (!bigger)
        return 0;
    *p = bigger;
    *cap = n;
    return 1;
}

static const char *driver_name(hid_t fid)
{
    hid_t fapl = H5Fget_access_plist(fid);
    hid_t driver = fapl >= 0 ? H5Pget_driver(fapl) : -1;
    if (fapl >= 0)
        H5Pclose(fapl);
    return driver == H5FD_MPIO ? "mpio" : driver == H5FD_SEC2 ? "sec2"
         : driver == H5FD_CORE ? "core" : "other";
}

void iot_capture_open(struct iot_file *file, double start, double end)
{
    if (!capture_path)
        return;
    struct iot_capture *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "iotwin: capture of %s: out of memory (the program goes on)\n", file->name);
        return;
    }
    c->t_open = start;
    c->t_open_done = c->last_end = end;
    c->driver = driver_name(file->id);
    iot_list_open(&c->unsupported);
    file->capture = c;
}

void iot_capture_free(struct iot_capture *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ndatasets; i++)
        free(c->datasets[i].name);
    free(c->datasets);
    free(c->calls);
    free(c->pool);
    iot_list_discard(&c->unsupported);
    free(c);
}

void iot_capture_metadata(struct iot_file *file, double seconds)
{
    if (file && file->capture)
        file->capture->metadata_s += seconds;
}

void iot_capture_unsupported(struct iot_file *file, const char *what, const char *name)
{
    if (!file || !file->capture)
        return;
    char text[512];
    snprintf(text, sizeof text, "%s%s%s", what, name ? " " : "", name ? name : "");
    json_string(iot_list_item(&file->capture->unsupported), text);
}

/* --- datasets -------------------------------------------------------------------------------- */

static struct cap_dataset *add_dataset(struct iot_file *file, struct iot_dataset *d)
{
    struct iot_capture *c = file->capture;
    if (!c || c->failed || d->capture_index)
        return NULL;
    if (!iot_capture_room(&c->datasets, &c->dataset_cap, (size_t)c->ndatasets + 1,
                          sizeof *c->datasets)) {
        c->failed = "out of memory";
        return NULL;
    }
    struct cap_dataset *cd = &c->datasets[c->ndatasets];
    memset(cd, 0, sizeof *cd);
    if (!(cd->name = strdup(d->name))) {
        c->failed = "out of memory";
        return NULL;
    }
    d->capture_index = ++c->ndatasets;
    cd->creation = (struct iot_creation){H5D_CONTIGUOUS, -1, {0}, H5D_FILL_TIME_IFSET,
                                         H5D_ALLOC_TIME_DEFAULT, H5D_FILL_VALUE_DEFAULT};
    return cd;
}

static void read_shape(struct cap_dataset *cd, hid_t type, hid_t space)
{
    cd->element_bytes = (long long)H5Tget_size(type);
    int rank = H5Sget_simple_extent_dims(space, cd->dims, cd->max_dims);
    cd->rank = rank > 0 ? rank : 0;
}

void iot_capture_created(struct iot_file *file, struct iot_dataset *d, hid_t type, hid_t space,
                         const struct iot_creation *settings)
{
    struct cap_dataset *cd = add_dataset(file, d);
    if (!cd)
        return;
    cd->created = 1;
    read_shape(cd, type, space);
    if (settings)
        cd->creation = *settings;
}

void iot_capture_opened(struct iot_file *file, struct iot_dataset *d, hid_t id)
{
    struct cap_dataset *cd = add_dataset(file, d);
    if (!cd)
        return;
    hid_t type = H5Dget_type(id), space = H5Dget_space(id), dcpl = H5Dget_create_plist(id);
    if (type >= 0 && space >= 0)
        read_shape(cd, type, space);
    if (dcpl >= 0)
        iot_read_creation(dcpl, &cd->creation);
    H5Tclose(type);
    H5Sclose(space);
    H5Pclose(dcpl);
    iot_capture_unsupported(file, "written but not created in this session (its layout is the "
                            "existing file's):", d->name);
}

/* --- this rank's calls ------------------------------------------------------------------------ */

static struct cap_call *add_call(struct iot_capture *c, double start, double end)
{
    if (!iot_capture_room(&c->calls, &c->call_cap, (size_t)c->ncalls + 1, sizeof *c->calls)) {
        c->failed = "out of memory";
        return NULL;
    }
    struct cap_call *call = &c->calls[c->ncalls++];
    memset(call, 0, sizeof *call);
    call->start = start;
    call->end = end;
    double gap = start - c->last_end - c->metadata_s;
    call->gap = gap > 0 ? gap : 0;
    c->last_end = end;
    c->metadata_s = 0;
    return call;
}

static long long *pool_take(struct iot_capture *c, size_t n)
{
    if (!iot_capture_room(&c->pool, &c->pool_cap, c->npool + n, sizeof *c->pool)) {
        c->failed = "out of memory";
        return NULL;
    }
    long long *p = c->pool + c->npool;
    c->npool += n;
    return p;
}

/* One box: start, extents. */
static int push_box(struct iot_capture *c, int rank, const hsize_t *start, const hsize_t *count)
{
    long long *p = pool_take(c, (size_t)DESC(rank));
    if (!p)
        return -1;
    for (int a = 0; a < rank; a++) {
        p[a] = (long long)start[a];
        p[rank + a] = 1;
        p[2 * rank + a] = (long long)count[a];
        p[3 * rank + a] = 1;
    }
    return 0;
}

static int push_regular(struct iot_capture *c, int rank, hid_t space)
{
    hsize_t start[MAXR], stride[MAXR], count[MAXR], block[MAXR];
    if (H5Sget_regular_hyperslab(space, start, stride, count, block) < 0)
        return -1;
    long long *p = pool_take(c, (size_t)DESC(rank));
    if (!p)
        return -1;
    for (int a = 0; a < rank; a++) {
        int box = count[a] == 1 || stride[a] == block[a];   /* contiguous along this axis */
        p[a] = (long long)start[a];
        p[rank + a] = box ? 1 : (long long)stride[a];
        p[2 * rank + a] = box ? (long long)(count[a] * block[a]) : (long long)count[a];
        p[3 * rank + a] = box ? 1 : (long long)block[a];
    }
    return 1;
}

static int push_blocks(struct iot_capture *c, int rank, hid_t space)
{
    hssize_t n = H5Sget_select_hyper_nblocks(space);
    hsize_t *corners = n > 0 ? malloc((size_t)n * 2 * (size_t)rank * sizeof *corners) : NULL;
    if (n <= 0 || !corners || H5Sget_select_hyper_blocklist(space, 0, (hsize_t)n, corners) < 0) {
        free(corners);
        return n == 0 ? 0 : -1;
    }
    hsize_t count[MAXR];
    for (hssize_t b = 0; b < n; b++) {
        const hsize_t *lo = corners + 2 * rank * b, *hi = lo + rank;
        for (int a = 0; a < rank; a++)
            count[a] = hi[a] - lo[a] + 1;
        if (push_box(c, rank, lo, count) < 0)
            n = -1;
    }
    free(corners);
    return (int)(n < 0 ? -1 : n);
}

/* Points, consecutive ones along the last axis merged into boxes. */
static int push_points(struct iot_capture *c, int rank, hid_t space)
{
    hssize_t n = H5Sget_select_elem_npoints(space);
    hsize_t *points = n > 0 ? malloc((size_t)n * (size_t)rank * sizeof *points) : NULL;
    if (n <= 0 || !points || H5Sget_select_elem_pointlist(space, 0, (hsize_t)n, points) < 0) {
        free(points);
        return n == 0 ? 0 : -1;
    }
    int boxes = 0;
    hsize_t count[MAXR];
    for (hssize_t i = 0; i < n && boxes >= 0;) {
        const hsize_t *first = points + rank * i;
        hssize_t j = i + 1;
        while (j < n && memcmp(points + rank * j, first, (size_t)(rank - 1) * sizeof *first) == 0
               && points[rank * j + rank - 1] == first[rank - 1] + (hsize_t)(j - i))
            j++;
        for (int a = 0; a < rank; a++)
            count[a] = a == rank - 1 ? (hsize_t)(j - i) : 1;
        boxes = push_box(c, rank, first, count) < 0 ? -1 : boxes + 1;
        i = j;
    }
    free(points);
    return boxes;
}

/* This rank's file selection of `points` elements (-1: not known); the number of hyperslabs,
 * -1 on failure. A selection that fills its bounding box (most do) costs one HDF5 call. */
static int push_selection(struct iot_capture *c, const struct cap_dataset *cd, hid_t space,
                          hssize_t points)
{
    static const hsize_t zero[MAXR];
    hsize_t lo[MAXR], hi[MAXR];
    if (space == H5S_ALL)
        return push_box(c, cd->rank, zero, cd->dims) < 0 ? -1 : 1;
    if (points == 0)
        return 0;
    if (points > 0 && cd->rank > 0 && H5Sget_select_bounds(space, lo, hi) >= 0) {
        hssize_t volume = 1;
        for (int a = 0; a < cd->rank; a++)
            volume *= (hssize_t)(hi[a] = hi[a] - lo[a] + 1);
        if (volume == points)
            return push_box(c, cd->rank, lo, hi) < 0 ? -1 : 1;
    }
    switch (H5Sget_select_type(space)) {
    case H5S_SEL_NONE: return 0;
    case H5S_SEL_ALL: return push_box(c, cd->rank, zero, cd->dims) < 0 ? -1 : 1;
    case H5S_SEL_POINTS: return cd->rank > 0 ? push_points(c, cd->rank, space) : -1;
    case H5S_SEL_HYPERSLABS:
        return H5Sis_regular_hyperslab(space) > 0 ? push_regular(c, cd->rank, space)
                                                  : push_blocks(c, cd->rank, space);
    default: return -1;
    }
}

static int is_collective(const struct iot_file *file, hid_t dxpl)
{
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    if (!file->mpio || dxpl == H5P_DEFAULT)
        return 0;
    if (dxpl != xfer_seen.id) {
        xfer_seen.collective = H5Pget_dxpl_mpio(dxpl, &mode) >= 0 && mode == H5FD_MPIO_COLLECTIVE;
        xfer_seen.id = dxpl;
    }
    return xfer_seen.collective;
}

void iot_capture_write(struct iot_file *file, struct iot_dataset *d, hid_t file_space,
                       hssize_t points, hid_t dxpl, double start, double end)
{
    struct iot_capture *c = file->capture;
    if (!c || c->failed || !d->capture_index)
        return;
    struct cap_dataset *cd = &c->datasets[d->capture_index - 1];
    size_t at = c->npool;
    long long *n = pool_take(c, 1);
    int boxes = n ? push_selection(c, cd, file_space, points) : -1;
    struct cap_call *call = boxes >= 0 ? add_call(c, start, end) : NULL;
    if (!call) {
        c->failed = c->failed ? c->failed : "a file selection could not be read";
        return;
    }
    c->pool[at] = boxes;
    call->dataset = d->capture_index - 1;
    call->ordinal = cd->writes++;
    call->collective = is_collective(file, dxpl);
    call->sel = at;
}

void iot_capture_flush(struct iot_file *file, double start, double end)
{
    struct iot_capture *c = file ? file->capture : NULL;
    struct cap_call *call = c && !c->failed ? add_call(c, start, end) : NULL;
    if (!call)
        return;
    call->dataset = -1;
    call->ordinal = c->flushes++;
}

void iot_capture_close(struct iot_file *file, double start, double end)
{
    /* a rank whose capture could not start still takes part, so that the others do not wait */
    static struct iot_capture none = {.failed = "out of memory at open"};
    if (capture_path)
        iot_capture_gather(file, file->capture ? file->capture : &none, start, end, capture_path);
}
