/* The workload format's rules (WORKLOAD.md "Rules"): what the keys of workload-schema.yaml
 * cannot say alone. The same checks, in the same order and with the same messages, as
 * iotwin.workloads.workload._Rules, on the document's normal form, which they complete with
 * the per-axis defaults of selections and runs. Extents, offsets and sizes are computed in 128
 * bits (every operand is within the bounds table), byte counts saturating, so nothing wraps. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "doc_yaml.h"
#include "record_check.h"
#include "workload_check.h"

#define PATH_LEN 512
#define MAX_AXES 4

typedef __int128 wide;

/* A decomposition and a regular selection share their first four fields. */
_Static_assert((int)WL_SELECTION_GRID == (int)WL_DECOMPOSITION_GRID
               && (int)WL_SELECTION_BLOCK == (int)WL_DECOMPOSITION_BLOCK
               && (int)WL_SELECTION_DIMS == (int)WL_DECOMPOSITION_DIMS
               && (int)WL_SELECTION_EXTENTS == (int)WL_DECOMPOSITION_EXTENTS,
               "selection and decomposition fields differ");

typedef struct {
    doc *out;
    input_refusal *refusal;
} rules;

/* A dataset of the session being checked. */
typedef struct {
    const char *name;
    size_t index;
    uint64_t dims[MAX_AXES];
    size_t rank;
    uint64_t element_bytes;
} shape;

#define fail(r, path, ...) input_refuse((r)->refusal, path, __VA_ARGS__)

/* A key path, cut at PATH_LEN. */
static void path_of(char *out, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, PATH_LEN, fmt, args);
    va_end(args);
}

static void sub(char *out, const char *path, const char *name)
{
    path_of(out, "%s.%s", path, name);
}

static void indexed(char *out, const char *path, const char *name, size_t i)
{
    path_of(out, "%s.%s[%zu]", path, name, i);
}

static const doc_node *F(const doc_node *record, int field)
{
    return record->items[field];
}

static int64_t I(const doc_node *list, size_t i)
{
    return list->items[i]->i;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t product;
    return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

/* Python's str(list): "[1, 2]". */
static const char *list_text(const uint64_t *v, size_t n, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "[");
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%llu", i ? ", " : "",
                                 (unsigned long long)v[i]);
    if (used < len)
        snprintf(out + used, len - used, "]");
    return out;
}

static const char *wide_list_text(const wide *v, size_t n, char *out, size_t len)
{
    uint64_t narrow[MAX_AXES];
    for (size_t i = 0; i < n; i++)
        narrow[i] = (uint64_t)v[i];
    return list_text(narrow, n, out, len);
}

/* A list of `rank` copies of `value` in the normal form. */
static doc_node *axis_list(rules *r, size_t rank, int64_t value)
{
    doc_node *n = doc_new(r->out, DOC_LIST);
    if (!n || doc_make_entries(r->out, n, rank))
        return NULL;
    for (size_t a = 0; a < rank; a++)
        if (!(n->items[a] = doc_int_node(r->out, value)))
            return NULL;
    return n;
}

/* --- sessions ------------------------------------------------------------------------------- */

static int writers_of(rules *r, const doc_node *file, uint64_t ranks, const char *path,
                      uint64_t *writers, uint64_t *files)
{
    const char *mode = F(file, WL_FILE_MODE)->text;
    char where[PATH_LEN];
    if (!strcmp(mode, "shared")) {
        *writers = ranks, *files = 1;
        return 0;
    }
    if (!strcmp(mode, "per-rank")) {
        *writers = 1, *files = ranks;
        return 0;
    }
    sub(where, path, "groups");
    const doc_node *groups = F(file, WL_FILE_GROUPS);
    if (!groups)
        return fail(r, where, "missing (needed with mode groups)");
    uint64_t g = (uint64_t)groups->i;
    if (ranks % g)
        return fail(r, where, "%llu does not divide %llu ranks", (unsigned long long)g,
                    (unsigned long long)ranks);
    *writers = ranks / g, *files = g;
    return 0;
}

/* Checks a decomposition (or a regular selection) on `writers`; its extents per axis. */
static int grid_extents(rules *r, const doc_node *node, uint64_t writers, const char *path,
                        uint64_t extents[MAX_AXES])
{
    static const char *const forms[] = {"block", "dims", "extents"};
    static const int fields[] = {WL_DECOMPOSITION_BLOCK, WL_DECOMPOSITION_DIMS,
                                 WL_DECOMPOSITION_EXTENTS};
    const doc_node *grid = F(node, WL_DECOMPOSITION_GRID);
    char where[PATH_LEN];
    int form = -1, present = 0;
    for (int k = 0; k < 3; k++)
        if (F(node, fields[k]))
            form = k, present++;
    if (present != 1)
        return fail(r, path, "needs exactly one of block, dims, extents");
    const doc_node *list = F(node, fields[form]);
    sub(where, path, forms[form]);
    if (list->n != grid->n)
        return fail(r, where, "one %s per grid axis (%zu)", form == 2 ? "list" : "extent",
                    grid->n);
    for (size_t a = 0; form == 2 && a < grid->n; a++)
        if ((int64_t)list->items[a]->n != I(grid, a)) {
            indexed(where, path, "extents", a);
            return fail(r, where, "expected %lld entries, got %zu", (long long)I(grid, a),
                        list->items[a]->n);
        }
    wide got = 1;
    for (size_t a = 0; a < grid->n; a++)
        got *= I(grid, a);
    if (got != (wide)writers) {
        sub(where, path, "grid");
        if (got <= WL_BOUND_PROCESSES_MAX)
            return fail(r, where, "%lld writers, but the file has %llu", (long long)got,
                        (unsigned long long)writers);
        return fail(r, where, "more than %lld writers, but the file has %llu",
                    WL_BOUND_PROCESSES_MAX, (unsigned long long)writers);
    }
    for (size_t a = 0; a < grid->n; a++) {
        wide extent = 0;
        if (form == 0)
            extent = (wide)I(grid, a) * I(list, a);
        else if (form == 1)
            extent = I(list, a);
        else
            for (size_t k = 0; k < list->items[a]->n; k++)
                extent += I(list->items[a], k);
        if (extent > WL_BOUND_EXTENT_MAX)
            return fail(r, path, "axis %zu is longer than %lld elements", a,
                        WL_BOUND_EXTENT_MAX);
        extents[a] = (uint64_t)extent;
    }
    return 0;
}

static uint64_t dataset_bytes(const shape *s)
{
    uint64_t bytes = s->element_bytes;
    for (size_t a = 0; a < s->rank; a++)
        bytes = sat_mul(bytes, s->dims[a]);
    return bytes;
}

static int dataset_dims(rules *r, const doc_node *ds, uint64_t writers, const char *path,
                        shape *s)
{
    const doc_node *decomposition = F(ds, WL_DATASET_DECOMPOSITION);
    const doc_node *dims = F(ds, WL_DATASET_DIMS), *chunk = F(ds, WL_DATASET_CHUNK_DIMS);
    char where[PATH_LEN], shown[256];
    if (decomposition) {
        sub(where, path, "decomposition");
        if (grid_extents(r, decomposition, writers, where, s->dims))
            return -1;
        s->rank = F(decomposition, WL_DECOMPOSITION_GRID)->n;
        int same = dims && dims->n == s->rank;
        for (size_t a = 0; same && a < s->rank; a++)
            same = (uint64_t)I(dims, a) == s->dims[a];
        sub(where, path, "dims");
        if (dims && !same)
            return fail(r, where, "differs from the decomposition's extents %s",
                        list_text(s->dims, s->rank, shown, sizeof shown));
    } else if (dims) {
        s->rank = dims->n;
        for (size_t a = 0; a < s->rank; a++)
            s->dims[a] = (uint64_t)I(dims, a);
    } else {
        sub(where, path, "dims");
        return fail(r, where, "missing (needed without a decomposition)");
    }
    if (dataset_bytes(s) > (uint64_t)WL_BOUND_DATASET_BYTES_MAX)
        return fail(r, path, "more than %lld bytes (element_bytes times its extents)",
                    WL_BOUND_DATASET_BYTES_MAX);
    sub(where, path, "chunk_dims");
    if (chunk && chunk->n != s->rank)
        return fail(r, where, "%zu extents for a %zu-axis dataset", chunk->n, s->rank);
    return 0;
}

/* --- calls ---------------------------------------------------------------------------------- */

/* Checks a run of hyperslabs on a dataset of `s`; the elements it writes. */
static int run(rules *r, doc_node *node, const shape *s, uint64_t writers, const char *path,
               uint64_t *elements)
{
    static const char *const names[] = {"start", "start_step", "count", "stride", "block"};
    static const int fields[] = {WL_RUN_START, WL_RUN_START_STEP, WL_RUN_COUNT, WL_RUN_STRIDE,
                                 WL_RUN_BLOCK};
    static const int64_t defaults[] = {0, 0, 1, 1, 1};
    const doc_node *ranks = F(node, WL_RUN_RANKS);
    int64_t first = I(ranks, 0), n = I(ranks, 1), step = ranks->n == 3 ? I(ranks, 2) : 1;
    char where[PATH_LEN];
    sub(where, path, "ranks");
    if (n && (uint64_t)(first + (n - 1) * step) >= writers)
        return fail(r, where, "names a writer beyond the file's %llu", (unsigned long long)writers);
    const doc_node *axes[5];
    for (int k = 0; k < 5; k++) {
        if (!node->items[fields[k]] && !(node->items[fields[k]] = axis_list(r, s->rank,
                                                                            defaults[k])))
            return fail(r, path, "out of memory");
        axes[k] = node->items[fields[k]];
        sub(where, path, names[k]);
        if (axes[k]->n != s->rank)
            return fail(r, where, "one value per axis of the dataset (%zu)", s->rank);
    }
    doc_node *normal_ranks = axis_list(r, 3, 0);
    if (!normal_ranks)
        return fail(r, path, "out of memory");
    normal_ranks->items[0]->i = first, normal_ranks->items[1]->i = n;
    normal_ranks->items[2]->i = step;
    node->items[WL_RUN_RANKS] = normal_ranks;
    int empty = !n;
    for (size_t a = 0; a < s->rank; a++) {
        int64_t count = I(axes[2], a), stride = I(axes[3], a), block = I(axes[4], a);
        sub(where, path, "stride");
        if (count > 1 && stride < block)
            return fail(r, where, "%lld is less than the block %lld along axis %zu: the "
                        "hyperslab's blocks overlap", (long long)stride, (long long)block, a);
        empty |= !count || !block;
    }
    *elements = 0;
    if (empty)
        return 0;
    *elements = (uint64_t)n;
    for (size_t a = 0; a < s->rank; a++) {
        wide start = I(axes[0], a), last = start + (wide)(n - 1) * I(axes[1], a);
        wide low = start < last ? start : last, high = start < last ? last : start;
        int64_t count = I(axes[2], a), block = I(axes[4], a);
        if (low < 0)
            return fail(r, path, "starts before the dataset along axis %zu", a);
        if (high + (wide)(count - 1) * I(axes[3], a) + block > (wide)s->dims[a])
            return fail(r, path, "reaches beyond the extent %llu along axis %zu",
                        (unsigned long long)s->dims[a], a);
        *elements = sat_mul(*elements, sat_mul((uint64_t)count, (uint64_t)block));
    }
    return 0;
}

/* Checks one dataset's selection; the elements it writes, and `regular` with its extents. */
static int selection(rules *r, doc_node *node, const shape *s, uint64_t writers,
                     const char *path, uint64_t *elements, int *regular,
                     uint64_t extents[MAX_AXES])
{
    static const char *const irregular[] = {"block", "dims", "extents", "origin"};
    static const int irregular_fields[] = {WL_SELECTION_BLOCK, WL_SELECTION_DIMS,
                                           WL_SELECTION_EXTENTS, WL_SELECTION_ORIGIN};
    const doc_node *grid = F(node, WL_SELECTION_GRID), *runs = F(node, WL_SELECTION_RUNS);
    char where[PATH_LEN], reached[256], shown[256];
    *regular = grid != NULL;
    *elements = 0;
    if (grid && runs)
        return fail(r, path, "is regular (grid) or explicit (runs), not both");
    if (!grid) {
        if (!runs)
            return fail(r, path, "needs grid (a regular selection) or runs");
        for (int k = 0; k < 4; k++)
            if (F(node, irregular_fields[k])) {
                sub(where, path, irregular[k]);
                return fail(r, where, "only for regular (grid) selections");
            }
        for (size_t k = 0; k < runs->n; k++) {
            uint64_t written = 0;
            indexed(where, path, "runs", k);
            if (run(r, runs->items[k], s, writers, where, &written))
                return -1;
            *elements = sat_add(*elements, written);
        }
        return 0;
    }
    sub(where, path, "grid");
    if (grid->n != s->rank)
        return fail(r, where, "one axis per axis of the dataset (%zu)", s->rank);
    if (grid_extents(r, node, writers, path, extents))
        return -1;
    if (!node->items[WL_SELECTION_ORIGIN]
        && !(node->items[WL_SELECTION_ORIGIN] = axis_list(r, s->rank, 0)))
        return fail(r, path, "out of memory");
    const doc_node *origin = node->items[WL_SELECTION_ORIGIN];
    sub(where, path, "origin");
    if (origin->n != s->rank)
        return fail(r, where, "one value per axis of the dataset (%zu)", s->rank);
    wide reach[MAX_AXES];
    int beyond = 0;
    for (size_t a = 0; a < s->rank; a++) {
        reach[a] = (wide)I(origin, a) + extents[a];
        beyond |= reach[a] > (wide)s->dims[a];
    }
    if (beyond)
        return fail(r, path, "reaches %s, beyond the dataset's extents %s",
                    wide_list_text(reach, s->rank, reached, sizeof reached),
                    list_text(s->dims, s->rank, shown, sizeof shown));
    *elements = 1;
    for (size_t a = 0; a < s->rank; a++)
        *elements = sat_mul(*elements, extents[a]);
    return 0;
}

static int repeat(rules *r, const doc_node *node, const doc_node *sel, int regular,
                  const uint64_t extents[MAX_AXES], const shape *s, const char *path)
{
    char where[PATH_LEN];
    if (!regular)
        return fail(r, path, "only for regular (grid) selections");
    const doc_node *step = F(node, WL_REPEAT_ORIGIN_STEP), *origin = F(sel, WL_SELECTION_ORIGIN);
    sub(where, path, "origin_step");
    if (step->n != s->rank)
        return fail(r, where, "one value per axis of the dataset (%zu)", s->rank);
    int64_t times = F(node, WL_REPEAT_TIMES)->i;
    for (size_t a = 0; a < s->rank; a++) {
        wide first = I(origin, a), last = first + (wide)(times - 1) * I(step, a);
        wide low = first < last ? first : last, high = first < last ? last : first;
        if (low < 0 || high + extents[a] > (wide)s->dims[a])
            return fail(r, path, "repetition %lld leaves the dataset along axis %zu",
                        (long long)(times - 1), a);
    }
    return 0;
}

static int by_name(const void *x, const void *y)
{
    const shape *a = x, *b = y;
    int order = strcmp(a->name, b->name);
    return order ? order : (a->index > b->index) - (a->index < b->index);
}

static const shape *find_shape(const shape *sorted, size_t n, const doc_node *name)
{
    shape key = {name->text, 0, {0}, 0, 0};
    if (memchr(name->text, '\0', name->len))
        return NULL;
    size_t low = 0, high = n;
    while (low < high) {
        size_t mid = (low + high) / 2;
        if (strcmp(sorted[mid].name, key.name) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return low < n && !strcmp(sorted[low].name, key.name) ? &sorted[low] : NULL;
}

/* Checks a call; the bytes it writes, its repetitions included. */
static int call(rules *r, doc_node *node, const shape *sorted, size_t nshapes, uint64_t writers,
                const char *path, uint64_t *written)
{
    static const char *const writing[] = {"write", "selections", "repeat"};
    static const int writing_fields[] = {WL_CALL_WRITE, WL_CALL_SELECTIONS, WL_CALL_REPEAT};
    const doc_node *names = F(node, WL_CALL_WRITE), *sels = F(node, WL_CALL_SELECTIONS);
    const doc_node *rep = F(node, WL_CALL_REPEAT);
    char where[PATH_LEN], shown[768];
    *written = 0;
    if (F(node, WL_CALL_FLUSH)->i) {
        for (int k = 0; k < 3; k++)
            if (F(node, writing_fields[k])) {
                sub(where, path, writing[k]);
                return fail(r, where, "a flush call writes nothing");
            }
        return 0;
    }
    sub(where, path, "write");
    if (!names)
        return fail(r, where, "missing (a call writes datasets or flushes)");
    size_t nsels = sels ? sels->n : 0;
    sub(where, path, "selections");
    if (nsels != names->n)
        return fail(r, where, "expected one per dataset written (%zu), got %zu", names->n, nsels);
    uint64_t times = rep ? (uint64_t)F(rep, WL_REPEAT_TIMES)->i : 1;
    for (size_t k = 0; k < names->n; k++) {
        const shape *s = find_shape(sorted, nshapes, names->items[k]);
        uint64_t elements, extents[MAX_AXES];
        int regular;
        if (!s) {
            indexed(where, path, "write", k);
            return fail(r, where, "no dataset %s in the session",
                        doc_describe(names->items[k], shown, sizeof shown));
        }
        indexed(where, path, "selections", k);
        if (selection(r, sels->items[k], s, writers, where, &elements, &regular, extents))
            return -1;
        sub(where, path, "repeat");
        if (rep && repeat(r, rep, sels->items[k], regular, extents, s, where))
            return -1;
        *written = sat_add(*written, sat_mul(sat_mul(elements, s->element_bytes), times));
    }
    return 0;
}

/* The first dataset (in order) whose name an earlier one has; n if none. */
static size_t first_repeated(shape *sorted, size_t n)
{
    size_t first = n;
    qsort(sorted, n, sizeof *sorted, by_name);
    for (size_t k = 1; k < n; k++)
        if (!strcmp(sorted[k].name, sorted[k - 1].name) && sorted[k].index < first)
            first = sorted[k].index;
    return first;
}

/* Checks a file session of `shapes` (one per dataset); the bytes it writes, all its files. */
/* A file name that stays inside the directory a run writes in: relative, and no ".." component
 * (a workload must not write over files elsewhere when it is replayed). */
static int inside_run_directory(const char *name)
{
    if (!*name || name[0] == '/')
        return 0;
    for (const char *part = name; part; part = strchr(part, '/')) {
        part += (*part == '/');
        if (part[0] == '.' && part[1] == '.' && (part[2] == '/' || part[2] == '\0'))
            return 0;
    }
    return 1;
}

static int session_with(rules *r, const doc_node *file, uint64_t ranks, const char *path,
                        shape *shapes, shape *sorted, uint64_t *written)
{
    const doc_node *datasets = F(file, WL_FILE_DATASETS), *calls = F(file, WL_FILE_CALLS);
    uint64_t writers = 0, files = 0;
    char where[PATH_LEN], name_path[PATH_LEN], shown[768];
    const doc_node *file_name = F(file, WL_FILE_NAME);
    if (!inside_run_directory(file_name->text)) {
        sub(name_path, path, "name");
        return fail(r, name_path, "%s lies outside the directory the run writes in (a file name "
                    "is relative, without '..')", doc_describe(file_name, shown, sizeof shown));
    }
    if (writers_of(r, file, ranks, path, &writers, &files))
        return -1;
    size_t n = datasets->n;
    for (size_t d = 0; d < n; d++) {
        const doc_node *name = F(datasets->items[d], WL_DATASET_NAME);
        sorted[d] = (shape){name->text, d, {0}, 0, 0};
    }
    size_t repeated = first_repeated(sorted, n);
    for (size_t d = 0; d < n; d++) {
        const doc_node *ds = datasets->items[d];
        indexed(where, path, "datasets", d);
        if (d == repeated) {
            sub(name_path, where, "name");
            return fail(r, name_path, "a second dataset named %s in the session",
                        doc_describe(F(ds, WL_DATASET_NAME), shown, sizeof shown));
        }
        shapes[d] = (shape){F(ds, WL_DATASET_NAME)->text, d, {0}, 0,
                            (uint64_t)F(ds, WL_DATASET_ELEMENT_BYTES)->i};
        if (dataset_dims(r, ds, writers, where, &shapes[d]))
            return -1;
    }
    memcpy(sorted, shapes, n * sizeof *shapes);
    qsort(sorted, n, sizeof *sorted, by_name);
    *written = 0;
    for (size_t c = 0; calls && c < calls->n; c++) {
        uint64_t bytes = 0;
        indexed(where, path, "calls", c);
        if (call(r, calls->items[c], sorted, n, writers, where, &bytes))
            return -1;
        *written = sat_add(*written, bytes);
    }
    for (size_t d = 0; !calls && d < n; d++)
        *written = sat_add(*written, dataset_bytes(&shapes[d]));
    *written = sat_mul(*written, files);
    return 0;
}

static int session(rules *r, const doc_node *file, uint64_t ranks, const char *path,
                   uint64_t *written)
{
    size_t n = F(file, WL_FILE_DATASETS)->n;
    shape *shapes = calloc(n, sizeof *shapes), *sorted = calloc(n, sizeof *sorted);
    int rc = shapes && sorted ? session_with(r, file, ranks, path, shapes, sorted, written)
                              : fail(r, path, "out of memory");
    free(shapes);
    free(sorted);
    return rc;
}

static int check_rules(rules *r, const doc_node *work)
{
    const doc_node *files = F(work, WL_WORKLOAD_FILES);
    uint64_t ranks = (uint64_t)F(work, WL_WORKLOAD_RANKS)->i, total = 0;
    char where[PATH_LEN];
    for (size_t i = 0; i < files->n; i++) {
        uint64_t written = 0;
        path_of(where, "files[%zu]", i);
        if (session(r, files->items[i], ranks, where, &written))
            return -1;
        total = sat_add(total, written);
        if (total > (uint64_t)WL_BOUND_WORKLOAD_BYTES_MAX)
            return fail(r, where, "the sessions up to this one write more than %lld bytes",
                        WL_BOUND_WORKLOAD_BYTES_MAX);
    }
    return 0;
}

int workload_check(const doc_node *document, const char *file, doc *out, doc_node **normal,
                   char *err, size_t errlen)
{
    input_refusal refusal;
    rules r = {out, &refusal};
    doc_node *n = NULL;
    int rc = record_check(WL_RECORDS, WL_R_WORKLOAD, document, &refusal);
    if (!rc && !(n = record_normal(WL_RECORDS, WL_R_WORKLOAD, document, out)))
        rc = input_refuse(&refusal, "", "out of memory");
    if (!rc)
        rc = check_rules(&r, n);
    if (rc) {
        size_t line = file ? doc_field_line(document, refusal.field) : 0;
        input_error_text(err, errlen, file, line, refusal.field, refusal.problem);
        return -1;
    }
    *normal = n;
    return 0;
}

int workload_load(const char *path, doc *source, doc *out, doc_node **normal, char *err,
                  size_t errlen)
{
    doc_node *root;
    if (doc_from_yaml_file(path, 1, source, &root, err, errlen))
        return -1;
    return workload_check(root, path, out, normal, err, errlen);
}
