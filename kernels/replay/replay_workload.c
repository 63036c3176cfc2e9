#include "replay_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "yaml_tree.h"

static const char *const MODES[] = {"shared", "per-rank", "groups", NULL};
static const char *const APIS[] = {"hdf5", "mpiio", NULL};
static const char *const TRANSFERS[] = {"independent", "collective", NULL};
static const char *const ROLES[] = {"checkpoint", "visualisation", "other", NULL};

static int load_decomposition(yaml_tree *t, yaml_node_t *node, const char *path,
                              decomposition *d)
{
    char sub[512];
    uint64_t grid[DECOMP_MAX_DIMS], sizes[DECOMP_MAX_DIMS];
    size_t ndims, n;
    snprintf(sub, sizeof sub, "%s.grid", path);
    if (tree_u64_list(t, tree_get(t, node, "grid"), sub, grid, DECOMP_MAX_DIMS, &ndims))
        return -1;
    yaml_node_t *block = tree_get(t, node, "block"), *dims = tree_get(t, node, "dims");
    yaml_node_t *extents = tree_get(t, node, "extents");
    int rc;
    if (block || dims) {
        snprintf(sub, sizeof sub, "%s.%s", path, block ? "block" : "dims");
        if (tree_u64_list(t, block ? block : dims, sub, sizes, DECOMP_MAX_DIMS, &n))
            return -1;
        if (n != ndims) {
            snprintf(t->err, t->errlen, "%s: %zu entries for a %zu-axis grid", sub, n, ndims);
            return -1;
        }
        rc = block ? decomp_init_uniform(d, (int)ndims, grid, sizes)
                   : decomp_init_balanced(d, (int)ndims, grid, sizes);
    } else if (extents && tree_length(extents) == ndims) {
        uint64_t *lists[DECOMP_MAX_DIMS] = {0};
        rc = 0;
        for (size_t a = 0; a < ndims && !rc; a++) {
            lists[a] = malloc(grid[a] * sizeof(uint64_t));
            snprintf(sub, sizeof sub, "%s.extents[%zu]", path, a);
            rc = !lists[a] || tree_u64_list(t, tree_item(t, extents, a), sub, lists[a],
                                            grid[a], &n) || n != grid[a];
            if (rc && lists[a] && n != grid[a])
                snprintf(t->err, t->errlen, "%s: expected %llu extents", sub,
                         (unsigned long long)grid[a]);
        }
        if (!rc)
            rc = decomp_init_listed(d, (int)ndims, grid, (const uint64_t *const *)lists);
        for (size_t a = 0; a < ndims; a++)
            free(lists[a]);
        if (rc)
            return -1;
    } else {
        snprintf(t->err, t->errlen, "%s: needs grid and one of block, dims, extents (one list "
                 "per grid axis)", path);
        return -1;
    }
    if (rc)
        snprintf(t->err, t->errlen, "%s: impossible decomposition (a zero in grid?)", path);
    return rc;
}

static int load_dataset(yaml_tree *t, yaml_node_t *node, const char *path, replay_dataset *ds)
{
    const char *name;
    int transfer;
    uint64_t size;
    static const uint64_t none = 0;
    static const int collective = 1;
    char sub[320];
    dataset_spec *spec = &ds->spec;
    if (tree_text(t, node, "name", path, &name, NULL) ||
        tree_u64(t, node, "element_bytes", path, &size, NULL) ||
        tree_choice(t, node, "transfer", path, TRANSFERS, &transfer, &collective) ||
        tree_u64(t, node, "access_elements", path, &spec->access_elements, &none))
        return -1;
    if (element_type_of_size(size, &spec->type)) {
        snprintf(t->err, t->errlen, "%s.element_bytes: expected 1, 2, 4 or 8, got %llu", path,
                 (unsigned long long)size);
        return -1;
    }
    if (strlen(name) >= sizeof spec->name) {
        snprintf(t->err, t->errlen, "%s.name: longer than %zu characters", path,
                 sizeof spec->name - 1);
        return -1;
    }
    strcpy(spec->name, name);
    ds->collective = transfer;
    snprintf(sub, sizeof sub, "%s.decomposition", path);
    if (load_decomposition(t, tree_get(t, node, "decomposition"), sub, &spec->decomp))
        return -1;
    yaml_node_t *chunk = tree_get(t, node, "chunk_dims");
    if (chunk) {
        size_t n;
        snprintf(sub, sizeof sub, "%s.chunk_dims", path);
        if (tree_u64_list(t, chunk, sub, spec->chunk, DECOMP_MAX_DIMS, &n))
            return -1;
        if ((int)n != spec->decomp.ndims) {
            snprintf(t->err, t->errlen, "%s: %zu dims for a %d-D dataset", sub, n,
                     spec->decomp.ndims);
            return -1;
        }
        spec->chunked = 1;
    }
    return 0;
}

/* A file name that stays inside the directory the replay writes in: relative, and no ".."
 * component (a workload from elsewhere must not write over files outside it). */
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

static int load_session(yaml_tree *t, yaml_node_t *node, const char *path, replay_session *s)
{
    static const int shared = MODE_SHARED, hdf5 = API_HDF5, yes = 1, no = 0;
    static const uint64_t zero = 0, one = 1;
    static const double no_time = 0;
    const char *name;
    int mode, api, role;
    if (tree_text(t, node, "name", path, &name, NULL) ||
        tree_choice(t, node, "role", path, ROLES, &role, NULL) ||
        tree_choice(t, node, "mode", path, MODES, &mode, &shared) ||
        tree_u64(t, node, "groups", path, &s->groups, &one) ||
        tree_choice(t, node, "api", path, APIS, &api, &hdf5) ||
        tree_bool(t, node, "create", path, &s->create, &yes) ||
        tree_double(t, node, "compute_before_s", path, &s->compute_before_s, &no_time) ||
        tree_u64(t, node, "flushes", path, &s->flushes, &zero) ||
        tree_bool(t, node, "keep_open", path, &s->keep_open, &no))
        return -1;
    if (!inside_run_directory(name)) {
        snprintf(t->err, t->errlen, "%s.name: '%s' lies outside the directory the replay "
                 "writes in (a file name is relative, without '..')", path, name);
        return -1;
    }
    s->name = strdup(name);
    s->role = strdup(ROLES[role]);
    s->mode = (file_mode)mode;
    s->api = (file_api)api;
    yaml_node_t *list = tree_get(t, node, "datasets");
    s->ndatasets = tree_length(list);
    if (!s->ndatasets) {
        snprintf(t->err, t->errlen, "%s.datasets: expected a non-empty list", path);
        return -1;
    }
    s->datasets = calloc(s->ndatasets, sizeof *s->datasets);
    for (size_t i = 0; i < s->ndatasets; i++) {
        char sub[300];
        snprintf(sub, sizeof sub, "%s.datasets[%zu]", path, i);
        if (load_dataset(t, tree_item(t, list, i), sub, &s->datasets[i]))
            return -1;
    }
    return 0;
}

static uint64_t writers_of(const replay_session *s, uint64_t ranks)
{
    if (s->mode == MODE_SHARED)
        return ranks;
    if (s->mode == MODE_PER_RANK)
        return 1;
    return ranks / s->groups;
}

static int check_session(const replay_session *s, uint64_t ranks, const char *path, char *err,
                         size_t errlen)
{
    if (s->mode == MODE_GROUPS && (s->groups == 0 || ranks % s->groups)) {
        snprintf(err, errlen, "%s.groups: %llu does not divide %llu ranks", path,
                 (unsigned long long)s->groups, (unsigned long long)ranks);
        return -1;
    }
    for (size_t i = 0; i < s->ndatasets; i++) {
        uint64_t n = decomp_writers(&s->datasets[i].spec.decomp);
        if (n != writers_of(s, ranks)) {
            snprintf(err, errlen, "%s.datasets[%zu].decomposition: %llu blocks for %llu writers "
                     "of a %s file", path, i, (unsigned long long)n,
                     (unsigned long long)writers_of(s, ranks), MODES[s->mode]);
            return -1;
        }
    }
    return 0;
}

static int load_root(yaml_tree *t, yaml_node_t *root, replay_workload *w)
{
    const char *name;
    static const char *const unnamed = "workload";
    if (!root || root->type != YAML_MAPPING_NODE) {
        snprintf(t->err, t->errlen, "expected a mapping with iotwin_workload, ranks, files");
        return -1;
    }
    if (!tree_get(t, root, "iotwin_workload")) {
        snprintf(t->err, t->errlen, "iotwin_workload: missing (not a workload file?)");
        return -1;
    }
    if (tree_text(t, root, "name", "", &name, &unnamed) ||
        tree_u64(t, root, "ranks", "", &w->ranks, NULL))
        return -1;
    w->name = strdup(name);
    yaml_node_t *files = tree_get(t, root, "files");
    w->nsessions = tree_length(files);
    if (!w->nsessions) {
        snprintf(t->err, t->errlen, "files: expected a non-empty list");
        return -1;
    }
    w->sessions = calloc(w->nsessions, sizeof *w->sessions);
    for (size_t i = 0; i < w->nsessions; i++) {
        char path[64];
        snprintf(path, sizeof path, "files[%zu]", i);
        if (load_session(t, tree_item(t, files, i), path, &w->sessions[i]) ||
            check_session(&w->sessions[i], w->ranks, path, t->err, t->errlen))
            return -1;
    }
    return 0;
}

int replay_workload_load(const char *path, replay_workload *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    FILE *in = fopen(path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, in);
    int rc = -1;
    char msg[512] = "";
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(msg, sizeof msg, "line %zu: %s", parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "not YAML");
    } else {
        yaml_tree t = {&doc, msg, sizeof msg};
        rc = load_root(&t, yaml_document_get_root_node(&doc), w);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    fclose(in);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, msg);
        replay_workload_free(w);
    }
    return rc;
}

void replay_workload_free(replay_workload *w)
{
    for (size_t i = 0; i < w->nsessions; i++) {
        replay_session *s = &w->sessions[i];
        for (size_t j = 0; j < s->ndatasets; j++)
            decomp_free(&s->datasets[j].spec.decomp);
        free(s->datasets);
        free(s->name);
        free(s->role);
    }
    free(w->sessions);
    free(w->name);
    memset(w, 0, sizeof *w);
}

void replay_session_place(const replay_session *s, uint64_t ranks, uint64_t rank,
                          uint64_t *writers, uint64_t *writer, uint64_t *file_index)
{
    *writers = writers_of(s, ranks);
    *writer = rank % *writers;
    *file_index = rank / *writers;
}
