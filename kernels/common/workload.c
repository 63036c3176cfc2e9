#include "workload.h"

#include "json.h"

static int axis_is_uniform(const decomposition *d, int a)
{
    for (uint64_t i = 1; i < d->grid[a]; i++)
        if (d->extent[a][i] != d->extent[a][0])
            return 0;
    return 1;
}

/* The extents decomp_init_balanced gives the axis' total: first slots take the remainder. */
static int axis_is_balanced(const decomposition *d, int a, uint64_t total)
{
    uint64_t base = total / d->grid[a], rest = total % d->grid[a];
    for (uint64_t i = 0; i < d->grid[a]; i++)
        if (d->extent[a][i] != base + (i < rest ? 1 : 0))
            return 0;
    return 1;
}

/* The most compact of the three forms that reproduces every block exactly. */
static void print_decomposition(FILE *out, const decomposition *d)
{
    uint64_t dims[DECOMP_MAX_DIMS], block[DECOMP_MAX_DIMS];
    int uniform = 1, balanced = 1;
    decomp_dims(d, dims);
    for (int a = 0; a < d->ndims; a++) {
        uniform = uniform && axis_is_uniform(d, a);
        balanced = balanced && axis_is_balanced(d, a, dims[a]);
        block[a] = d->extent[a][0];
    }
    fputs("{\"grid\": ", out);
    json_uint_list(out, d->ndims, d->grid);
    if (uniform) {
        fputs(", \"block\": ", out);
        json_uint_list(out, d->ndims, block);
    } else if (balanced) {
        fputs(", \"dims\": ", out);
        json_uint_list(out, d->ndims, dims);
    } else {
        fputs(", \"extents\": [", out);
        for (int a = 0; a < d->ndims; a++) {
            fputs(a ? ", " : "", out);
            json_uint_list(out, (int)d->grid[a], d->extent[a]);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

static void print_chunk_dims(FILE *out, const dataset_spec *ds)
{
    fputs(", \"chunk_dims\": ", out);
    if (ds->chunked)
        json_uint_list(out, ds->decomp.ndims, ds->chunk);
    else
        fputs("null", out);
}

static void print_fill_value(FILE *out, const dataset_spec *ds)
{
    if (ds->user_fill_value)
        fputs(", \"fill_value\": \"user\"", out);
}

static void print_dataset(FILE *out, const dataset_spec *ds, const char *transfer)
{
    fputs("{\"name\": ", out);
    json_string(out, ds->name);
    fprintf(out, ", \"element_bytes\": %zu, \"decomposition\": ", element_bytes(ds->type));
    print_decomposition(out, &ds->decomp);
    print_chunk_dims(out, ds);
    if (ds->access_elements)
        fprintf(out, ", \"access_elements\": %llu", (unsigned long long)ds->access_elements);
    print_fill_value(out, ds);
    fprintf(out, ", \"transfer\": \"%s\"}", transfer);
}

/* A dataset of a session of calls: its extents, not who writes it. */
static void print_created_dataset(FILE *out, const dataset_spec *ds)
{
    uint64_t dims[DECOMP_MAX_DIMS];
    decomp_dims(&ds->decomp, dims);
    fputs("{\"name\": ", out);
    json_string(out, ds->name);
    fprintf(out, ", \"element_bytes\": %zu, \"dims\": ", element_bytes(ds->type));
    json_uint_list(out, ds->decomp.ndims, dims);
    print_chunk_dims(out, ds);
    print_fill_value(out, ds);
    fputc('}', out);
}

/* The decomposition form says one write per dataset by all its writers and flushes after
 * them; anything else is said as the session's calls. */
static int needs_calls(const layout *l)
{
    if (l->flush_at_define || l->flush_at_close)
        return 1;
    for (size_t i = 0; i < l->count; i++)
        if (l->datasets[i].created_only)
            return 1;
    return 0;
}

static void print_calls(FILE *out, const workload_run *run, const layout *l,
                        const char *transfer)
{
    const char *sep = "\n  ";
    fputs("], \"calls\": [", out);
    if (l->flush_at_define) {
        fprintf(out, "%s{\"flush\": true}", sep);
        sep = ",\n  ";
    }
    for (size_t i = 0; i < l->count; i++) {
        const dataset_spec *ds = &l->datasets[i];
        if (ds->created_only)
            continue;
        fprintf(out, "%s{\"write\": [", sep);
        json_string(out, ds->name);
        fprintf(out, "], \"transfer\": \"%s\", \"selections\": [", transfer);
        print_decomposition(out, &ds->decomp);
        fputs("]}", out);
        sep = ",\n  ";
    }
    if (run->sync) {
        fprintf(out, "%s{\"flush\": true}", sep);
        sep = ",\n  ";
    }
    if (l->flush_at_close)
        fprintf(out, "%s{\"flush\": true}", sep);
}

void workload_print(FILE *out, const workload_run *run, const layout *l)
{
    const char *transfer = run->independent ? "independent" : "collective";
    int calls = needs_calls(l);
    fputs("{\"iotwin_workload\": 1, \"name\": ", out);
    json_string(out, run->kernel);
    fputs(", \"source\": ", out);
    json_string(out, run->source);
    fprintf(out, ", \"ranks\": %llu, \"files\": [{\"name\": ", (unsigned long long)run->ranks);
    json_string(out, run->file);
    fprintf(out, ", \"role\": \"%s\", \"mode\": \"shared\", \"api\": \"%s\", \"create\": true, "
                 "\"compute_before_s\": 0, ", run->role, run->api);
    if (!calls)
        fprintf(out, "\"write_calls\": \"%s\", \"flushes\": %d, ",
                l->one_call ? "one-call" : "per-dataset", run->sync ? 1 : 0);
    fputs("\"datasets\": [", out);
    for (size_t i = 0; i < l->count; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        if (calls)
            print_created_dataset(out, &l->datasets[i]);
        else
            print_dataset(out, &l->datasets[i], transfer);
    }
    if (calls)
        print_calls(out, run, l, transfer);
    fputs("]}]}\n", out);
}
