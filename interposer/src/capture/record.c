/* The session's JSON line, written by rank 0 (format: interposer/README.md): its datasets,
 * then its calls in time order, each regular selection as {grid, block, origin} (a loop of
 * them folded into one call's `repeat`), each other one as runs of ranks. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdlib.h>

#include "capture/session.h"
#include "core/text.h"
#include "core/report.h"

static int all_equal(const long long *v, int n, long long value)
{
    for (int i = 0; i < n; i++)
        if (v[i] != value)
            return 0;
    return 1;
}

/* --- irregular selections: runs of ranks ---------------------------------------------------- */

struct run {
    int first, n, open;
    const long long *h;        /* the first writer's hyperslab */
    long long step[MAXR];
};

static void write_run(struct buf *out, const struct run *run, int rank, int *count)
{
    const long long *h = run->h, ranks[2] = {run->first, run->n};
    put(out, (*count)++ ? ", {\"ranks\": " : "{\"ranks\": ");
    put_list(out, ranks, 2);
    PUT(out, ", \"start\": ");
    put_list(out, h, rank);
    if (run->n > 1 && !all_equal(run->step, rank, 0)) {
        PUT(out, ", \"start_step\": ");
        put_list(out, run->step, rank);
    }
    PUT(out, ", \"count\": ");
    put_list(out, h + 2 * rank, rank);
    if (!all_equal(h + rank, rank, 1)) {
        PUT(out, ", \"stride\": ");
        put_list(out, h + rank, rank);
    }
    if (!all_equal(h + 3 * rank, rank, 1)) {
        PUT(out, ", \"block\": ");
        put_list(out, h + 3 * rank, rank);
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
    put_list(out, s->grid + x, rank);
    PUT(out, ", \"block\": ");
    put_list(out, s->block + x, rank);
    if (!all_equal(s->origin + x, rank, 0)) {
        PUT(out, ", \"origin\": ");
        put_list(out, s->origin + x, rank);
    }
    PUT(out, "}");
}

/* --- datasets --------------------------------------------------------------------------------- */

static void write_dataset(struct buf *out, const struct cap_dataset *cd)
{
    static const char *FILL[] = {[H5D_FILL_TIME_ALLOC] = "alloc", [H5D_FILL_TIME_NEVER] = "never",
                                 [H5D_FILL_TIME_IFSET] = "ifset"};
    static const char *ALLOC[] = {[H5D_ALLOC_TIME_DEFAULT] = "default",
                                  [H5D_ALLOC_TIME_EARLY] = "early", [H5D_ALLOC_TIME_LATE] = "late",
                                  [H5D_ALLOC_TIME_INCR] = "incr"};
    H5D_fill_time_t fill = cd->creation.fill;
    H5D_alloc_time_t alloc = cd->creation.alloc;
    PUT(out, "{\"name\": ");
    put_string(out, cd->name);
    PUT(out, ", \"element_bytes\": ");
    put_int(out, cd->element_bytes);
    PUT(out, ", \"dims\": ");
    put_hsizes(out, cd->dims, cd->rank, 0);
    PUT(out, ", \"max_dims\": ");
    put_hsizes(out, cd->max_dims, cd->rank, 1);
    PUT(out, ", \"layout\": \"");
    put(out, iot_layout_name(cd->creation.layout));
    PUT(out, "\", \"chunk_dims\": ");
    if (cd->creation.layout == H5D_CHUNKED && cd->creation.chunk_rank > 0)
        put_hsizes(out, cd->creation.chunk, cd->creation.chunk_rank, 0);
    else
        PUT(out, "null");
    PUT(out, ", \"fill_time\": \"");
    put(out, fill >= 0 && fill <= H5D_FILL_TIME_IFSET ? FILL[fill] : "ifset");
    PUT(out, "\", \"alloc_time\": \"");
    put(out, alloc >= 0 && alloc <= H5D_ALLOC_TIME_INCR ? ALLOC[alloc] : "default");
    PUT(out, "\", \"fill_value\": \"");
    put(out, iot_fill_value_name(cd->creation.fill_value));
    PUT(out, "\"}");
}

/* Only when the program set one: HDF5's defaults are the workload's when it is absent. */
static void write_hdf5_access(struct buf *out, const struct iot_capture *c)
{
    if (!(c->coll_metadata_write || c->all_coll_metadata_ops))
        return;
    PUT(out, ", \"hdf5_access\": {\"coll_metadata_write\": ");
    put(out, c->coll_metadata_write ? "true" : "false");
    PUT(out, ", \"all_coll_metadata_ops\": ");
    put(out, c->all_coll_metadata_ops ? "true" : "false");
    PUT(out, "}");
}

static void write_hdf5_create(struct buf *out, const struct iot_capture *c)
{
    const struct cap_hdf5_create *f = &c->hdf5_create;
    if (!f->libver_low)
        return;
    put_format(out, ", \"hdf5_create\": {\"libver_low\": \"%s\", "
               "\"link_creation_order\": \"%s\", \"attr_creation_order\": \"%s\", "
               "\"track_times\": %s}", f->libver_low, f->link_creation_order,
               f->attr_creation_order, f->track_times ? "true" : "false");
}

static void write_datasets(struct buf *out, const struct iot_capture *c)
{
    PUT(out, ", \"datasets\": [");
    for (int d = 0; d < c->ndatasets; d++) {
        put(out, d ? ", " : "");
        write_dataset(out, &c->datasets[d]);
    }
    PUT(out, "]");
}

/* --- calls ------------------------------------------------------------------------------------ */

/* Write j (in time order) repeats write i shifted by `step`: the same dataset, transfer, grid
 * and block, every writer's block moved by the same offset. */
static int repeats(const struct session *s, int g, int h, int rank, const long long *step)
{
    if (s->dataset[h] != s->dataset[g] || !s->regular[h]
        || CALL_COLLECTIVE(s, h) != CALL_COLLECTIVE(s, g))
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
        compute += CALL_GAP(s, order[i + n + 1]), n++;
    if (n == 0)
        return 0;
    PUT(out, ", \"repeat\": {\"times\": ");
    put_int(out, n + 1);
    PUT(out, ", \"origin_step\": ");
    put_list(out, step, rank);
    PUT(out, ", \"compute_between_s\": ");
    put_seconds(out, compute / n);
    PUT(out, "}");
    return n;
}

static const struct session *order_of;

static int by_start(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double sx = CALL_START(order_of, x), sy = CALL_START(order_of, y);
    return sx < sy ? -1 : sx > sy ? 1 : x - y;
}

/* The global calls in time order (of their earliest start). */
static int *time_order(const struct session *s)
{
    int C = s->ncalls, *order = malloc(((size_t)C + 1) * sizeof *order), sorted = 1;
    if (!order)
        return NULL;
    for (int g = 0; g < C; g++)
        order[g] = g;
    order_of = s;
    for (int g = 1; g < C && sorted; g++)
        sorted = by_start(&order[g - 1], &order[g]) < 0;
    if (!sorted)
        qsort(order, (size_t)C, sizeof *order, by_start);
    return order;
}

/* Texts written once and copied into the calls: each irregular write's runs (at[g] to
 * at[g + 1] in `text`, walking the gathered selections in global write order) and each
 * dataset's name as a JSON string. */
struct pieces {
    struct buf runs, names;
    size_t *at, *name_at;
};

static int prepare_pieces(struct pieces *p, const struct session *s, const struct iot_capture *c)
{
    const long long **cursor = malloc((size_t)s->size * sizeof *cursor);
    p->at = malloc(((size_t)s->nwrites + 1) * sizeof *p->at);
    p->name_at = malloc(((size_t)s->nd + 1) * sizeof *p->name_at);
    for (int w = 0, off = 0; cursor && w < s->size; w++) {
        cursor[w] = s->gathered + off;
        off += s->gathered_len ? s->gathered_len[w] : 0;
    }
    for (int g = 0; cursor && p->at && g < s->nwrites; g++) {
        p->at[g] = p->runs.len;
        if (!s->regular[g])   /* regular ones are written as they come: most fold into repeats */
            write_runs(&p->runs, cursor, s->size, session_axes(s, c, g));
    }
    if (p->at)
        p->at[s->nwrites] = p->runs.len;
    for (int d = 0; p->name_at && d < s->nd; d++) {
        p->name_at[d] = p->names.len;
        put_string(&p->names, c->datasets[d].name);
    }
    if (p->name_at)
        p->name_at[s->nd] = p->names.len;
    free(cursor);
    return cursor && p->at && p->name_at && !p->runs.failed && !p->names.failed;
}

/* Global call order[i]; how many later calls it took in as repetitions. */
static int write_call(struct buf *out, const struct session *s, const struct iot_capture *c,
                      const struct pieces *p, const int *order, int i)
{
    int g = order[i], d = s->dataset[g], rank = session_axes(s, c, g);
    if (d < 0) {
        PUT(out, "{\"flush\": true, \"compute_before_s\": ");
        put_seconds(out, CALL_GAP(s, g));
        PUT(out, "}");
        return 0;
    }
    PUT(out, "{\"write\": [");
    put_bytes(out, p->names.s + p->name_at[d], p->name_at[d + 1] - p->name_at[d]);
    put(out, CALL_COLLECTIVE(s, g) ? "], \"transfer\": \"collective\""
                                   : "], \"transfer\": \"independent\"");
    PUT(out, ", \"compute_before_s\": ");
    put_seconds(out, CALL_GAP(s, g));
    PUT(out, ", \"selections\": [");
    if (s->regular[g])
        write_regular(out, s, g, rank);
    else
        put_bytes(out, p->runs.s + p->at[g], p->at[g + 1] - p->at[g]);
    PUT(out, "]");
    int taken = write_repeat(out, s, order, i, rank);
    PUT(out, "}");
    return taken;
}

static int write_calls(struct buf *out, const struct session *s, const struct iot_capture *c)
{
    struct pieces p = {{NULL, 0, 0, 0}, {NULL, 0, 0, 0}, NULL, NULL};
    int *order = time_order(s);
    int ok = order && prepare_pieces(&p, s, c);
    PUT(out, ", \"calls\": [");
    for (int i = 0; ok && i < s->ncalls; i++) {
        put(out, i ? ", " : "");
        i += write_call(out, s, c, &p, order, i);
    }
    PUT(out, "]");
    free(p.runs.s), free(p.names.s), free(p.at), free(p.name_at), free(order);
    return ok;
}

/* --- the record -------------------------------------------------------------------------------- */

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

static void write_header(struct buf *out, const struct session *s, const struct iot_file *file)
{
    static const char *TIMES[] = {"t_open", "t_open_done", "t_close", "t_close_done"};
    const double values[] = {s->mins[0], s->maxs[0], s->mins[1], s->maxs[1]};
    int world_rank, world_size;
    world(&world_rank, &world_size);
    PUT(out, "{\"iotwin_capture\": 1, ");
    iot_put_file_identity(out, file);
    PUT(out, ", \"comm_size\": ");
    put_int(out, s->size);
    PUT(out, ", \"world_rank\": ");
    put_int(out, world_rank);
    PUT(out, ", \"world_size\": ");
    put_int(out, world_size);
    for (int i = 0; i < 4; i++) {
        PUT(out, ", \"");
        put(out, TIMES[i]);
        PUT(out, "\": ");
        put_seconds(out, values[i]);
    }
    PUT(out, ", \"driver\": \"");
    put(out, file->driver);
    PUT(out, "\"");
}

int session_write_record(const struct session *s, struct iot_file *file, struct iot_capture *c,
                         const char *path)
{
    struct buf out = {NULL, 0, 0, 0};
    write_header(&out, s, file);
    write_hdf5_access(&out, c);
    write_hdf5_create(&out, c);
    write_datasets(&out, c);
    PUT(&out, ", \"attributes\": ");
    iot_list_put(&out, &c->attributes);
    int ok = write_calls(&out, s, c);
    PUT(&out, ", \"unsupported\": ");
    iot_list_put(&out, &c->unsupported);
    PUT(&out, "}\n");
    ok = ok && !out.failed && iot_append_line(path, out.s, out.len) == 0;
    free(out.s);
    return ok;
}
