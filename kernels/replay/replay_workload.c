/* The replay proxy's reader: a workload file checked as every reader checks it
 * (formats/workload_check.h), then its normal form taken into the sessions replay runs. What
 * the proxy cannot run is refused as such, apart from the format's errors. It does not model
 * write_calls (every dataset is its own H5Dwrite), fill_time, alloc_time and fill_value (HDF5's
 * defaults), mpi and ranks_per_node (the launcher's) or element_type (informative). */
#include "replay_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_check.h"

static const char *const MODES[] = {"shared", "per-rank", "groups", NULL};
static const char *const APIS[] = {"hdf5", "mpiio", NULL};

static int index_of(const char *const words[], const char *word)
{
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], word))
            return i;
    return -1;
}

static uint64_t U(const doc_node *list, size_t i)
{
    return (uint64_t)list->items[i]->i;
}

static int cannot(char *err, size_t errlen, const char *path, const char *why)
{
    snprintf(err, errlen, "%s: the replay proxy cannot run it: %s", path, why);
    return REPLAY_UNSUPPORTED;
}

static int take_decomposition(const doc_node *node, decomposition *d)
{
    const doc_node *grid = wl_field(node, WL_DECOMPOSITION_GRID);
    const doc_node *block = wl_field(node, WL_DECOMPOSITION_BLOCK);
    const doc_node *dims = wl_field(node, WL_DECOMPOSITION_DIMS);
    const doc_node *extents = wl_field(node, WL_DECOMPOSITION_EXTENTS);
    int nd = (int)grid->n;
    uint64_t g[DECOMP_MAX_DIMS], sizes[DECOMP_MAX_DIMS];
    uint64_t *lists[DECOMP_MAX_DIMS] = {0};
    for (int a = 0; a < nd; a++) {
        g[a] = U(grid, (size_t)a);
        if (block || dims)
            sizes[a] = U(block ? block : dims, (size_t)a);
    }
    if (block)
        return decomp_init_uniform(d, nd, g, sizes);
    if (dims)
        return decomp_init_balanced(d, nd, g, sizes);
    int rc = 0;
    for (int a = 0; a < nd && !rc; a++) {
        rc = !(lists[a] = malloc(g[a] * sizeof *lists[a]));
        for (uint64_t k = 0; !rc && k < g[a]; k++)
            lists[a][k] = U(extents->items[a], k);
    }
    if (!rc)
        rc = decomp_init_listed(d, nd, g, (const uint64_t *const *)lists);
    for (int a = 0; a < nd; a++)
        free(lists[a]);
    return rc;
}

static int take_dataset(const doc_node *node, const char *path, replay_dataset *ds, char *err,
                        size_t errlen)
{
    dataset_spec *spec = &ds->spec;
    const char *name = wl_field(node, WL_DATASET_NAME)->text;
    const doc_node *chunk = wl_field(node, WL_DATASET_CHUNK_DIMS);
    const doc_node *access = wl_field(node, WL_DATASET_ACCESS_ELEMENTS);
    const doc_node *decomposition = wl_field(node, WL_DATASET_DECOMPOSITION);
    char where[600];
    snprintf(where, sizeof where, "%s.element_bytes", path);
    if (element_type_of_size((uint64_t)wl_field(node, WL_DATASET_ELEMENT_BYTES)->i, &spec->type))
        return cannot(err, errlen, where, "it writes elements of 1, 2, 4 or 8 bytes");
    snprintf(where, sizeof where, "%s.name", path);
    if (strlen(name) >= sizeof spec->name)
        return cannot(err, errlen, where, "a dataset name longer than 127 bytes");
    snprintf(where, sizeof where, "%s.decomposition", path);
    if (!decomposition)
        return cannot(err, errlen, where, "it writes each writer's block of a decomposition "
                      "(`iotwin simulate` runs datasets written by calls)");
    strcpy(spec->name, name);
    const doc_node *transfer = wl_field(node, WL_DATASET_TRANSFER);  /* absent: collective */
    ds->collective = !transfer || !strcmp(transfer->text, "collective");
    spec->access_elements = access ? (uint64_t)access->i : 0;
    if (take_decomposition(decomposition, &spec->decomp)) {
        snprintf(err, errlen, "%s: out of memory", where);
        return REPLAY_INVALID;
    }
    spec->chunked = chunk != NULL;
    for (size_t a = 0; chunk && a < chunk->n; a++)
        spec->chunk[a] = U(chunk, a);
    return 0;
}

static int take_session(const doc_node *node, const char *path, replay_session *s, char *err,
                        size_t errlen)
{
    const doc_node *datasets = wl_field(node, WL_FILE_DATASETS);
    const doc_node *groups = wl_field(node, WL_FILE_GROUPS);
    int api = index_of(APIS, wl_field(node, WL_FILE_API)->text);
    char where[300];
    snprintf(where, sizeof where, "%s.api", path);
    if (api < 0)
        return cannot(err, errlen, where, "it writes through hdf5 or mpiio");
    snprintf(where, sizeof where, "%s.calls", path);
    if (wl_field(node, WL_FILE_CALLS))
        return cannot(err, errlen, where, "it runs sessions of decompositions, not captured "
                      "calls (`iotwin simulate` runs them)");
    snprintf(where, sizeof where, "%s.hdf5_access", path);
    if (wl_field(node, WL_FILE_HDF5_ACCESS))
        return cannot(err, errlen, where, "it opens files with HDF5's default access "
                      "properties (`iotwin simulate` runs them)");
    snprintf(where, sizeof where, "%s.hdf5_create", path);
    if (wl_field(node, WL_FILE_HDF5_CREATE))
        return cannot(err, errlen, where, "it creates files with HDF5's default object "
                      "formats (`iotwin simulate` runs them)");
    snprintf(where, sizeof where, "%s.attributes", path);
    if (wl_field(node, WL_FILE_ATTRIBUTES))
        return cannot(err, errlen, where, "it writes no attributes (`iotwin simulate` makes "
                      "them)");
    s->name = strdup(wl_field(node, WL_FILE_NAME)->text);
    s->role = strdup(wl_field(node, WL_FILE_ROLE)->text);
    s->mode = (file_mode)index_of(MODES, wl_field(node, WL_FILE_MODE)->text);
    s->groups = groups ? (uint64_t)groups->i : 1;
    s->api = (file_api)api;
    s->create = (int)wl_field(node, WL_FILE_CREATE)->i;
    s->compute_before_s = wl_field(node, WL_FILE_COMPUTE_BEFORE_S)->f;
    s->flushes = (uint64_t)wl_field(node, WL_FILE_FLUSHES)->i;
    s->keep_open = (int)wl_field(node, WL_FILE_KEEP_OPEN)->i;
    s->ndatasets = datasets->n;
    s->datasets = calloc(s->ndatasets, sizeof *s->datasets);
    if (!s->name || !s->role || !s->datasets) {
        snprintf(err, errlen, "%s: out of memory", path);
        return REPLAY_INVALID;
    }
    for (size_t i = 0; i < s->ndatasets; i++) {
        snprintf(where, sizeof where, "%s.datasets[%zu]", path, i);
        int rc = take_dataset(datasets->items[i], where, &s->datasets[i], err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

static int take_workload(const doc_node *normal, replay_workload *w, char *err, size_t errlen)
{
    const doc_node *files = wl_field(normal, WL_WORKLOAD_FILES);
    w->name = strdup(wl_field(normal, WL_WORKLOAD_NAME)->text);
    w->ranks = (uint64_t)wl_field(normal, WL_WORKLOAD_RANKS)->i;
    w->nsessions = files->n;
    w->sessions = calloc(w->nsessions, sizeof *w->sessions);
    if (!w->name || !w->sessions) {
        snprintf(err, errlen, "out of memory");
        return REPLAY_INVALID;
    }
    for (size_t i = 0; i < w->nsessions; i++) {
        char path[64];
        snprintf(path, sizeof path, "files[%zu]", i);
        int rc = take_session(files->items[i], path, &w->sessions[i], err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* Loads `path` into w (its normal form left in `normal`): 0, REPLAY_INVALID, REPLAY_UNSUPPORTED. */
static int load(const char *path, replay_workload *w, doc *source, doc *normal, doc_node **form,
                char *err, size_t errlen)
{
    char message[1024];
    memset(w, 0, sizeof *w);
    if (workload_load(path, source, normal, form, err, errlen))
        return REPLAY_INVALID;
    int rc = take_workload(*form, w, message, sizeof message);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, message);
        replay_workload_free(w);
    }
    return rc;
}

int replay_workload_load(const char *path, replay_workload *w, char *err, size_t errlen)
{
    doc source, normal;
    doc_node *form;
    doc_init(&source);
    doc_init(&normal);
    int rc = load(path, w, &source, &normal, &form, err, errlen);
    doc_free(&source);
    doc_free(&normal);
    return rc;
}

wl_verdict replay_workload_verdict(const char *path, FILE *out)
{
    doc source, normal;
    doc_node *form = NULL;
    char err[2048];
    replay_workload w;
    doc_init(&source);
    doc_init(&normal);
    int rc = load(path, &w, &source, &normal, &form, err, sizeof err);
    wl_verdict verdict = rc == REPLAY_INVALID ? WL_REFUSED
                       : rc == REPLAY_UNSUPPORTED ? WL_CANNOT_RUN : WL_ACCEPTED;
    workload_print_verdict(out, path, verdict, rc ? err : NULL, rc == REPLAY_INVALID ? NULL : form);
    if (!rc)
        replay_workload_free(&w);
    doc_free(&source);
    doc_free(&normal);
    return verdict;
}

void replay_workload_free(replay_workload *w)
{
    for (size_t i = 0; i < w->nsessions; i++) {
        replay_session *s = &w->sessions[i];
        for (size_t j = 0; s->datasets && j < s->ndatasets; j++)
            decomp_free(&s->datasets[j].spec.decomp);
        free(s->datasets);
        free(s->name);
        free(s->role);
    }
    free(w->sessions);
    free(w->name);
    memset(w, 0, sizeof *w);
}

static uint64_t writers_of(const replay_session *s, uint64_t ranks)
{
    if (s->mode == MODE_SHARED)
        return ranks;
    if (s->mode == MODE_PER_RANK)
        return 1;
    return ranks / s->groups;
}

void replay_session_place(const replay_session *s, uint64_t ranks, uint64_t rank,
                          uint64_t *writers, uint64_t *writer, uint64_t *file_index)
{
    *writers = writers_of(s, ranks);
    *writer = rank % *writers;
    *file_index = rank / *writers;
}
