#define _GNU_SOURCE
#include "lustre/layout.h"

#include "core/libc.h"
#include "core/text.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* lustreapi.h's values (lustre/include/lustre/lustreapi.h): the library is not a build-time
 * dependency, so they are stated here. */
#define LLAPI_LAYOUT_INVALID 0x1000000000000001ULL
#define LLAPI_LAYOUT_DEFAULT (LLAPI_LAYOUT_INVALID + 1)
#define LLAPI_LAYOUT_WIDE (LLAPI_LAYOUT_INVALID + 2)
#define LLAPI_LAYOUT_MDT 2ULL
#define LLAPI_LAYOUT_COMP_USE_FIRST 1
#define LLAPI_LAYOUT_COMP_USE_NEXT 3

struct llapi_layout;

/* The llapi_layout_* calls used, resolved once. */
static struct {
    int tried, ok;
    struct llapi_layout *(*alloc)(void);
    void (*release)(struct llapi_layout *);
    struct llapi_layout *(*get_by_path)(const char *, uint32_t);
    int (*file_create)(const char *, int, int, const struct llapi_layout *);
    int (*comp_add)(struct llapi_layout *);
    int (*comp_use)(struct llapi_layout *, uint32_t);
    int (*extent_set)(struct llapi_layout *, uint64_t, uint64_t);
    int (*extent_get)(const struct llapi_layout *, uint64_t *, uint64_t *);
    int (*count_set)(struct llapi_layout *, uint64_t);
    int (*count_get)(const struct llapi_layout *, uint64_t *);
    int (*size_set)(struct llapi_layout *, uint64_t);
    int (*size_get)(const struct llapi_layout *, uint64_t *);
    int (*pattern_set)(struct llapi_layout *, uint64_t);
    int (*pattern_get)(const struct llapi_layout *, uint64_t *);
    int (*pool_set)(struct llapi_layout *, const char *);
    int (*pool_get)(const struct llapi_layout *, char *, size_t);
    int (*ost_index_set)(struct llapi_layout *, int, uint64_t);
} api;

static void *symbol(void *library, const char *name, int *missing)
{
    void *found = dlsym(library, name);
    *missing |= found == NULL;
    return found;
}

static int loaded(void)
{
    if (api.tried)
        return api.ok;
    api.tried = 1;
    void *library = dlopen("liblustreapi.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
        library = dlopen("liblustreapi.so", RTLD_NOW | RTLD_LOCAL);
    if (!library)
        return 0;
    int missing = 0;
    *(void **)&api.alloc = symbol(library, "llapi_layout_alloc", &missing);
    *(void **)&api.release = symbol(library, "llapi_layout_free", &missing);
    *(void **)&api.get_by_path = symbol(library, "llapi_layout_get_by_path", &missing);
    *(void **)&api.file_create = symbol(library, "llapi_layout_file_create", &missing);
    *(void **)&api.comp_add = symbol(library, "llapi_layout_comp_add", &missing);
    *(void **)&api.comp_use = symbol(library, "llapi_layout_comp_use", &missing);
    *(void **)&api.extent_set = symbol(library, "llapi_layout_comp_extent_set", &missing);
    *(void **)&api.extent_get = symbol(library, "llapi_layout_comp_extent_get", &missing);
    *(void **)&api.count_set = symbol(library, "llapi_layout_stripe_count_set", &missing);
    *(void **)&api.count_get = symbol(library, "llapi_layout_stripe_count_get", &missing);
    *(void **)&api.size_set = symbol(library, "llapi_layout_stripe_size_set", &missing);
    *(void **)&api.size_get = symbol(library, "llapi_layout_stripe_size_get", &missing);
    *(void **)&api.pattern_set = symbol(library, "llapi_layout_pattern_set", &missing);
    *(void **)&api.pattern_get = symbol(library, "llapi_layout_pattern_get", &missing);
    *(void **)&api.pool_set = symbol(library, "llapi_layout_pool_name_set", &missing);
    *(void **)&api.pool_get = symbol(library, "llapi_layout_pool_name_get", &missing);
    *(void **)&api.ost_index_set = symbol(library, "llapi_layout_ost_index_set", &missing);
    api.ok = !missing;   /* a library too old for composite layouts is as good as none */
    return api.ok;
}

static int failed(void)
{
    return errno ? -errno : -EIO;
}

/* The current component set as `c` asks, on extent [start, c->end). */
static int set_component(struct llapi_layout *layout, uint64_t start,
                         const struct iot_layout_component *c, int composite)
{
    if (composite && api.extent_set(layout, start, c->end))
        return failed();
    if (c->mdt) {   /* Data-on-MDT: its stripe is the whole extent (lfs setstripe -L mdt) */
        if (api.pattern_set(layout, LLAPI_LAYOUT_MDT) || api.size_set(layout, c->end - start))
            return failed();
        return 0;
    }
    uint64_t count = c->stripe_count == -1 ? LLAPI_LAYOUT_WIDE
                     : c->stripe_count == IOT_LAYOUT_UNSET ? LLAPI_LAYOUT_DEFAULT
                                                           : (uint64_t)c->stripe_count;
    uint64_t size = c->stripe_size == IOT_LAYOUT_UNSET ? LLAPI_LAYOUT_DEFAULT
                                                       : (uint64_t)c->stripe_size;
    if (api.count_set(layout, count) || api.size_set(layout, size))
        return failed();
    if (c->pool[0] && api.pool_set(layout, c->pool))
        return failed();
    return 0;
}

static int build(struct llapi_layout *layout, const struct iot_layout *l)
{
    int composite = l->ncomponents > 1;
    uint64_t start = 0;
    for (int i = 0; i < l->ncomponents; i++) {
        if (i > 0 && api.comp_add(layout))
            return failed();
        int rc = set_component(layout, start, &l->component[i], composite);
        if (rc)
            return rc;
        if (i == 0 && l->stripe_offset >= 0 && !l->component[0].mdt
            && api.ost_index_set(layout, 0, (uint64_t)l->stripe_offset))
            return failed();
        start = l->component[i].end;
    }
    return 0;
}

int iot_layout_create(const char *path, const struct iot_layout *l)
{
    if (!loaded())
        return -ENOSYS;
    if (l->ncomponents < 1 || l->ncomponents > IOT_LAYOUT_MAX_COMPONENTS)
        return -EINVAL;
    struct llapi_layout *layout = api.alloc();
    if (!layout)
        return -ENOMEM;
    errno = 0;
    int rc = build(layout, l);
    if (rc == 0) {
        int fd = api.file_create(path, O_WRONLY, 0666, layout);
        rc = fd < 0 ? failed() : 0;
        if (fd >= 0)
            iot_libc_close(fd);
    }
    api.release(layout);
    return rc;
}

static void read_component(struct llapi_layout *layout, struct iot_layout_component *c)
{
    uint64_t start = 0, end = IOT_LAYOUT_EOF, count = 0, size = 0, pattern = 0;
    api.extent_get(layout, &start, &end);
    c->end = end;
    c->mdt = api.pattern_get(layout, &pattern) == 0 && pattern == LLAPI_LAYOUT_MDT;
    c->stripe_count = api.count_get(layout, &count) == 0 && !c->mdt ? (long long)count
                                                                     : IOT_LAYOUT_UNSET;
    c->stripe_size = api.size_get(layout, &size) == 0 ? (long long)size : IOT_LAYOUT_UNSET;
    if (api.pool_get(layout, c->pool, sizeof c->pool) < 0)
        c->pool[0] = '\0';
}

int iot_layout_read(const char *path, struct iot_layout *l)
{
    if (!loaded())
        return -ENOSYS;
    errno = 0;
    struct llapi_layout *layout = api.get_by_path(path, 0);
    if (!layout)
        return failed();
    memset(l, 0, sizeof *l);
    l->stripe_offset = IOT_LAYOUT_UNSET;
    int more = api.comp_use(layout, LLAPI_LAYOUT_COMP_USE_FIRST) == 0;
    while (more && l->ncomponents < IOT_LAYOUT_MAX_COMPONENTS) {
        read_component(layout, &l->component[l->ncomponents++]);
        more = api.comp_use(layout, LLAPI_LAYOUT_COMP_USE_NEXT) == 0;
    }
    if (l->ncomponents == 0) {   /* a plain layout has no components to select */
        read_component(layout, &l->component[0]);
        l->component[0].end = IOT_LAYOUT_EOF;
        l->ncomponents = 1;
    }
    api.release(layout);
    return 0;
}

void iot_layout_json(struct buf *out, const struct iot_layout *l)
{
    PUT(out, "{\"components\": [");
    for (int i = 0; i < l->ncomponents; i++) {
        const struct iot_layout_component *c = &l->component[i];
        put(out, i ? ", {\"end\": " : "{\"end\": ");
        if (c->end == IOT_LAYOUT_EOF)
            PUT(out, "\"eof\"");
        else
            put_format(out, "%llu", (unsigned long long)c->end);
        if (c->mdt)
            PUT(out, ", \"mdt\": true");
        if (c->stripe_count != IOT_LAYOUT_UNSET) {
            PUT(out, ", \"stripe_count\": ");
            put_int(out, c->stripe_count);
        }
        if (c->stripe_size != IOT_LAYOUT_UNSET) {
            PUT(out, ", \"stripe_size\": ");
            put_int(out, c->stripe_size);
        }
        if (c->pool[0]) {
            PUT(out, ", \"pool\": ");
            put_string(out, c->pool);
        }
        PUT(out, "}");
    }
    PUT(out, "]}");
}
