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

static void print_dataset(FILE *out, const dataset_spec *ds, const char *transfer)
{
    fputs("{\"name\": ", out);
    json_string(out, ds->name);
    fprintf(out, ", \"element_bytes\": %zu, \"decomposition\": ", element_bytes(ds->type));
    print_decomposition(out, &ds->decomp);
    print_chunk_dims(out, ds);
    if (ds->access_elements)
        fprintf(out, ", \"access_elements\": %llu", (unsigned long long)ds->access_elements);
    fprintf(out, ", \"transfer\": \"%s\"}", transfer);
}

void workload_print(FILE *out, const workload_run *run, const layout *l)
{
    const char *transfer = run->independent ? "independent" : "collective";
    fputs("{\"iotwin_workload\": 1, \"name\": ", out);
    json_string(out, run->kernel);
    fputs(", \"source\": ", out);
    json_string(out, run->source);
    fprintf(out, ", \"ranks\": %llu, \"files\": [{\"name\": ", (unsigned long long)run->ranks);
    json_string(out, run->file);
    fprintf(out, ", \"role\": \"%s\", \"mode\": \"shared\", \"api\": \"%s\", \"create\": true, "
                 "\"compute_before_s\": 0, \"write_calls\": \"%s\", \"flushes\": %d, ",
            run->role, run->api, l->one_call ? "one-call" : "per-dataset", run->sync ? 1 : 0);
    fputs("\"datasets\": [", out);
    for (size_t i = 0; i < l->count; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        print_dataset(out, &l->datasets[i], transfer);
    }
    fputs("]}]}\n", out);
}
