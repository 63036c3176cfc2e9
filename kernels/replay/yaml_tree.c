#include "yaml_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *scalar(yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

int tree_is_null(yaml_node_t *node)
{
    const char *s = scalar(node);
    return !node || (s && (!strcmp(s, "null") || !strcmp(s, "~") || !*s) &&
                     node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE);
}

yaml_node_t *tree_get(yaml_tree *t, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(t->doc, p->key));
        if (k && !strcmp(k, key)) {
            yaml_node_t *value = yaml_document_get_node(t->doc, p->value);
            return tree_is_null(value) ? NULL : value;
        }
    }
    return NULL;
}

size_t tree_length(yaml_node_t *seq)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return 0;
    return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

yaml_node_t *tree_item(yaml_tree *t, yaml_node_t *seq, size_t index)
{
    if (index >= tree_length(seq))
        return NULL;
    return yaml_document_get_node(t->doc, seq->data.sequence.items.start[index]);
}

static int fail(yaml_tree *t, const char *path, const char *key, const char *expected,
                const char *got)
{
    snprintf(t->err, t->errlen, "%s%s%s: expected %s, got %s", path, *path ? "." : "", key,
             expected, got ? got : "nothing");
    return -1;
}

/* The scalar at key; 1 when absent (and fallback allowed), 0 found, -1 error. */
static int lookup(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
                  const char *expected, int optional, const char **out)
{
    yaml_node_t *node = tree_get(t, map, key);
    if (!node) {
        if (optional)
            return 1;
        return fail(t, path, key, expected, NULL);
    }
    if (!(*out = scalar(node)))
        return fail(t, path, key, expected, "a list or mapping");
    return 0;
}

int tree_text(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
              const char **out, const char *const *fallback)
{
    int found = lookup(t, map, key, path, "a string", fallback != NULL, out);
    if (found == 1)
        *out = *fallback;
    return found < 0 ? -1 : 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

int tree_u64(yaml_tree *t, yaml_node_t *map, const char *key, const char *path, uint64_t *out,
             const uint64_t *fallback)
{
    const char *s;
    int found = lookup(t, map, key, path, "a non-negative integer", fallback != NULL, &s);
    if (found == 1)
        *out = *fallback;
    else if (found == 0 && parse_u64(s, out))
        return fail(t, path, key, "a non-negative integer", s);
    return found < 0 ? -1 : 0;
}

int tree_double(yaml_tree *t, yaml_node_t *map, const char *key, const char *path, double *out,
                const double *fallback)
{
    const char *s;
    int found = lookup(t, map, key, path, "a non-negative number", fallback != NULL, &s);
    if (found == 1) {
        *out = *fallback;
    } else if (found == 0) {
        char *end;
        *out = strtod(s, &end);
        if (!*s || *end || *out < 0)
            return fail(t, path, key, "a non-negative number", s);
    }
    return found < 0 ? -1 : 0;
}

int tree_bool(yaml_tree *t, yaml_node_t *map, const char *key, const char *path, int *out,
              const int *fallback)
{
    static const char *const choices[] = {"false", "true", NULL};
    return tree_choice(t, map, key, path, choices, out, fallback);
}

int tree_choice(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
                const char *const choices[], int *out, const int *fallback)
{
    char expected[256] = "one of";
    for (int i = 0; choices[i]; i++)
        snprintf(expected + strlen(expected), sizeof expected - strlen(expected), " %s",
                 choices[i]);
    const char *s;
    int found = lookup(t, map, key, path, expected, fallback != NULL, &s);
    if (found == 1) {
        *out = *fallback;
        return 0;
    }
    if (found < 0)
        return -1;
    for (int i = 0; choices[i]; i++)
        if (!strcmp(s, choices[i])) {
            *out = i;
            return 0;
        }
    return fail(t, path, key, expected, s);
}

int tree_u64_list(yaml_tree *t, yaml_node_t *node, const char *path, uint64_t out[], size_t max,
                  size_t *n)
{
    *n = tree_length(node);
    if (!node || node->type != YAML_SEQUENCE_NODE || *n == 0 || *n > max) {
        snprintf(t->err, t->errlen, "%s: expected a list of 1 to %zu integers", path, max);
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        const char *s = scalar(tree_item(t, node, i));
        if (!s || parse_u64(s, &out[i])) {
            snprintf(t->err, t->errlen, "%s[%zu]: expected a non-negative integer, got %s", path,
                     i, s ? s : "a list or mapping");
            return -1;
        }
    }
    return 0;
}
