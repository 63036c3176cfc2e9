#define _GNU_SOURCE
#include "capture/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/types.h"
#include "core/runtime.h"

static const char *capture_path;

void iot_capture_init(void)
{
    const char *path = getenv("IOTWIN_CAPTURE");
    capture_path = path && *path ? path : NULL;
}

int iot_capture_enabled(void)
{
    return capture_path != NULL;
}

int iot_nothing_to_do(void)
{
    return !iot_rt.config && !iot_rt.run.report_path && !capture_path;
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

void iot_capture_start(struct iot_file *file, double start, double end)
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
    iot_list_open(&c->unsupported);
    iot_list_open(&c->attributes);
    file->capture = c;
}

void iot_capture_set_hdf5_access(struct iot_file *file, int coll_metadata_write,
                                 int all_coll_metadata_ops)
{
    struct iot_capture *c = file ? file->capture : NULL;
    if (!c)
        return;
    c->coll_metadata_write = coll_metadata_write;
    c->all_coll_metadata_ops = all_coll_metadata_ops;
}

void iot_capture_set_hdf5_create(struct iot_file *file, const struct cap_hdf5_create *formats)
{
    struct iot_capture *c = file ? file->capture : NULL;
    if (c)
        c->hdf5_create = *formats;
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
    iot_list_discard(&c->attributes);
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
    put_string(iot_list_item(&file->capture->unsupported), text);
}

/* --- datasets -------------------------------------------------------------------------------- */

int iot_capture_new_dataset(struct iot_file *file, const char *name, struct cap_dataset **cd)
{
    struct iot_capture *c = file->capture;
    if (!c || c->failed)
        return 0;
    if (!iot_room(&c->datasets, &c->dataset_cap, (size_t)c->ndatasets + 1, sizeof *c->datasets)) {
        c->failed = "out of memory";
        return 0;
    }
    *cd = &c->datasets[c->ndatasets];
    memset(*cd, 0, sizeof **cd);
    if (!((*cd)->name = strdup(name))) {
        c->failed = "out of memory";
        return 0;
    }
    (*cd)->creation = (struct iot_creation){H5D_CONTIGUOUS, -1, {0}, H5D_FILL_TIME_IFSET,
                                            H5D_ALLOC_TIME_DEFAULT, H5D_FILL_VALUE_DEFAULT};
    return ++c->ndatasets;
}

void iot_capture_set_shape(struct cap_dataset *cd, long long element_bytes, int rank,
                           const hsize_t *dims, const hsize_t *max_dims)
{
    cd->element_bytes = element_bytes;
    cd->rank = rank > 0 ? rank : 0;
    for (int a = 0; a < cd->rank; a++) {
        cd->dims[a] = dims[a];
        cd->max_dims[a] = max_dims ? max_dims[a] : dims[a];
    }
}

/* --- this rank's calls ------------------------------------------------------------------------ */

static struct cap_call *add_call(struct iot_capture *c, double start, double end)
{
    if (!iot_room(&c->calls, &c->call_cap, (size_t)c->ncalls + 1, sizeof *c->calls)) {
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
    if (!iot_room(&c->pool, &c->pool_cap, c->npool + n, sizeof *c->pool)) {
        c->failed = "out of memory";
        return NULL;
    }
    long long *p = c->pool + c->npool;
    c->npool += n;
    return p;
}

int iot_capture_push_hyperslab(struct iot_capture *c, int rank, const hsize_t *start,
                               const hsize_t *stride, const hsize_t *count,
                               const hsize_t *block)
{
    long long *p = pool_take(c, (size_t)DESC(rank));
    if (!p)
        return -1;
    for (int a = 0; a < rank; a++) {
        p[a] = (long long)start[a];
        p[rank + a] = stride ? (long long)stride[a] : 1;
        p[2 * rank + a] = (long long)count[a];
        p[3 * rank + a] = block ? (long long)block[a] : 1;
    }
    return 0;
}

int iot_capture_push_box(struct iot_capture *c, int rank, const hsize_t *start,
                         const hsize_t *count)
{
    return iot_capture_push_hyperslab(c, rank, start, NULL, count, NULL);
}

void iot_capture_write_to(struct iot_file *file, int index, int collective,
                          iot_selection_push push, const void *arg, double start, double end)
{
    struct iot_capture *c = file->capture;
    if (!c || c->failed || !index)
        return;
    struct cap_dataset *cd = &c->datasets[index - 1];
    size_t at = c->npool;
    long long *n = pool_take(c, 1);
    int boxes = n ? push(c, cd, arg) : -1;
    struct cap_call *call = boxes >= 0 ? add_call(c, start, end) : NULL;
    if (!call) {
        c->failed = c->failed ? c->failed : "a file selection could not be read";
        return;
    }
    c->pool[at] = boxes;
    call->dataset = index - 1;
    call->collective = collective != 0;
    call->ordinal = cd->writes[call->collective]++;
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
