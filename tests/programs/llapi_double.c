/* A recording test double of the few liblustreapi calls the interposer makes (its
 * interposer/src/lustre/layout.c), built as liblustreapi.so.1 for tests that put its folder on
 * LD_LIBRARY_PATH: the real library needs a Lustre client, which this machine has not.
 *
 * Each call is appended as one line to $IOTWIN_LLAPI_LOG ("comp_add", "extent_set 0 262144",
 * ...). llapi_layout_file_create creates the file (O_CREAT | O_EXCL, as the real one) and keeps
 * its layout beside it in FILE.llapi, one component a line, which llapi_layout_get_by_path
 * reads back. Values mean what lustreapi.h says; nothing is checked beyond what the tests
 * need (a component's extent must start where the previous one ended). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COMPONENTS 16
#define DEFAULT_VALUE 0x1000000000000002ULL /* LLAPI_LAYOUT_DEFAULT */

struct component {
    uint64_t start, end, count, size, pattern, ost;
    char pool[16];
};

struct llapi_layout {
    int n, current;
    struct component c[MAX_COMPONENTS];
};

static void logged(const char *format, ...)
{
    const char *path = getenv("IOTWIN_LLAPI_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (!log)
        return;
    va_list args;
    va_start(args, format);
    vfprintf(log, format, args);
    va_end(args);
    fputc('\n', log);
    fclose(log);
}

static struct component fresh(uint64_t start)
{
    struct component c = {start, UINT64_MAX, DEFAULT_VALUE, DEFAULT_VALUE, 0, DEFAULT_VALUE, ""};
    return c;
}

struct llapi_layout *llapi_layout_alloc(void)
{
    struct llapi_layout *layout = calloc(1, sizeof *layout);
    layout->n = 1;
    layout->c[0] = fresh(0);
    logged("alloc");
    return layout;
}

void llapi_layout_free(struct llapi_layout *layout)
{
    free(layout);
}

static struct component *now(struct llapi_layout *layout)
{
    return &layout->c[layout->current];
}

int llapi_layout_comp_add(struct llapi_layout *layout)
{
    logged("comp_add");
    if (layout->n == MAX_COMPONENTS || now(layout)->end == UINT64_MAX) {
        errno = EINVAL;   /* the last component must end before another is added */
        return -1;
    }
    layout->c[layout->n] = fresh(layout->c[layout->n - 1].end);
    layout->current = layout->n++;
    return 0;
}

int llapi_layout_comp_use(struct llapi_layout *layout, uint32_t position)
{
    if (position == 1) {          /* LLAPI_LAYOUT_COMP_USE_FIRST */
        layout->current = 0;
        return 0;
    }
    if (position == 3) {          /* LLAPI_LAYOUT_COMP_USE_NEXT: 1 past the last */
        if (layout->current + 1 >= layout->n)
            return 1;
        layout->current++;
        return 0;
    }
    errno = EINVAL;
    return -1;
}

int llapi_layout_comp_extent_set(struct llapi_layout *layout, uint64_t start, uint64_t end)
{
    logged("extent_set %llu %llu", (unsigned long long)start, (unsigned long long)end);
    struct component *c = now(layout);
    if (start != c->start || end <= start) {
        errno = EINVAL;
        return -1;
    }
    c->end = end;
    return 0;
}

int llapi_layout_comp_extent_get(const struct llapi_layout *layout, uint64_t *start,
                                 uint64_t *end)
{
    *start = layout->c[layout->current].start;
    *end = layout->c[layout->current].end;
    return 0;
}

#define SETTER(name, field, label)                                                  \
    int llapi_layout_##name##_set(struct llapi_layout *layout, uint64_t value)     \
    {                                                                               \
        logged(label " %llu", (unsigned long long)value);                          \
        now(layout)->field = value;                                                 \
        return 0;                                                                   \
    }                                                                               \
    int llapi_layout_##name##_get(const struct llapi_layout *layout, uint64_t *out) \
    {                                                                               \
        *out = layout->c[layout->current].field;                                   \
        return 0;                                                                   \
    }

SETTER(stripe_count, count, "stripe_count_set")
SETTER(stripe_size, size, "stripe_size_set")
SETTER(pattern, pattern, "pattern_set")

int llapi_layout_ost_index_set(struct llapi_layout *layout, int stripe, uint64_t index)
{
    logged("ost_index_set %d %llu", stripe, (unsigned long long)index);
    now(layout)->ost = index;
    return 0;
}

int llapi_layout_pool_name_set(struct llapi_layout *layout, const char *name)
{
    logged("pool_name_set %s", name);
    snprintf(now(layout)->pool, sizeof now(layout)->pool, "%s", name);
    return 0;
}

int llapi_layout_pool_name_get(const struct llapi_layout *layout, char *out, size_t len)
{
    return snprintf(out, len, "%s", layout->c[layout->current].pool);
}

static char *side_file(const char *path)
{
    char *name = NULL;
    return asprintf(&name, "%s.llapi", path) < 0 ? NULL : name;
}

int llapi_layout_file_create(const char *path, int flags, int mode,
                             const struct llapi_layout *layout)
{
    logged("file_create %s", path);
    int fd = open(path, flags | O_CREAT | O_EXCL, mode);
    char *name = side_file(path);
    FILE *kept = fd >= 0 && name ? fopen(name, "w") : NULL;
    for (int i = 0; kept && i < layout->n; i++) {
        const struct component *c = &layout->c[i];
        fprintf(kept, "%llu %llu %llu %llu %llu %llu %s\n", (unsigned long long)c->start,
                (unsigned long long)c->end, (unsigned long long)c->count,
                (unsigned long long)c->size, (unsigned long long)c->pattern,
                (unsigned long long)c->ost, c->pool[0] ? c->pool : "-");
    }
    if (kept)
        fclose(kept);
    free(name);
    return fd;
}

struct llapi_layout *llapi_layout_get_by_path(const char *path, uint32_t flags)
{
    (void)flags;
    logged("get_by_path %s", path);
    char *name = side_file(path);
    FILE *kept = name ? fopen(name, "r") : NULL;
    free(name);
    if (!kept) {
        errno = ENODATA;
        return NULL;
    }
    struct llapi_layout *layout = calloc(1, sizeof *layout);
    unsigned long long v[6];
    char pool[16];
    while (layout->n < MAX_COMPONENTS
           && fscanf(kept, "%llu %llu %llu %llu %llu %llu %15s", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], pool) == 7) {
        struct component *c = &layout->c[layout->n++];
        *c = (struct component){v[0], v[1], v[2], v[3], v[4], v[5], ""};
        if (strcmp(pool, "-") != 0)
            snprintf(c->pool, sizeof c->pool, "%s", pool);
    }
    fclose(kept);
    return layout;
}
