/* Typed look-ups in a libyaml document, each failure a message naming the key's path. */
#ifndef IOTWIN_REPLAY_YAML_TREE_H
#define IOTWIN_REPLAY_YAML_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

typedef struct {
    yaml_document_t *doc;
    char *err;
    size_t errlen;
} yaml_tree;

/* NULL when the key is absent (or the value is YAML null). */
yaml_node_t *tree_get(yaml_tree *t, yaml_node_t *map, const char *key);
/* The `index`-th item of a sequence node. */
yaml_node_t *tree_item(yaml_tree *t, yaml_node_t *seq, size_t index);
size_t tree_length(yaml_node_t *seq);
int tree_is_null(yaml_node_t *node);

/* Each returns 0, or -1 with a message "PATH: expected ..., got ..." in t->err.
 * With `fallback` != NULL an absent key yields *fallback instead of an error. */
int tree_text(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
              const char **out, const char *const *fallback);
int tree_u64(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
             uint64_t *out, const uint64_t *fallback);
int tree_double(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
                double *out, const double *fallback);
int tree_bool(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
              int *out, const int *fallback);
/* One of `choices` (NULL-terminated); *out is its index. */
int tree_choice(yaml_tree *t, yaml_node_t *map, const char *key, const char *path,
                const char *const choices[], int *out, const int *fallback);
/* A sequence of at most `max` non-negative integers. */
int tree_u64_list(yaml_tree *t, yaml_node_t *node, const char *path, uint64_t out[], size_t max,
                  size_t *n);

#endif
