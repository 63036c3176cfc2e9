/* An input's refusal as one line, `FILE:LINE: FIELD: problem`, worded as
 * iotwin.core.errors.InputError words it, and the line of a field found as
 * iotwin.core.yaml_files.field_line finds it: by walking the field's key path
 * (`files[0].datasets[1].name`) down the tree a reader built from the input's text. Shared
 * by every C and C++ reader of the formats users write (configs in the interposer,
 * workloads in iosim and the replay proxy), whatever their tree. */
#ifndef IOTWIN_FORMATS_INPUT_ERROR_H
#define IOTWIN_FORMATS_INPUT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "FILE:LINE: FIELD: problem" into out: without ":LINE" when line is 0 (an input without
 * lines), without "FIELD: " when field is empty, without "FILE:" when file is NULL (an input
 * inside another: its field's path says where). */
void input_error_text(char *out, size_t len, const char *file, size_t line, const char *field,
                      const char *problem);

/* input_error_text with the problem as vprintf words `fmt` and `args`; returns -1, as a reader
 * refusing its input does. */
int input_error_vtext(char *out, size_t len, const char *file, size_t line, const char *field,
                      const char *fmt, va_list args) __attribute__((format(printf, 6, 0)));

#define INPUT_FIELD_LEN 512
#define INPUT_PROBLEM_LEN 1024

/* A field a reader refuses (its key path; empty: the whole input) and why: the parts of the
 * line input_error_text writes, the line left to whoever knows the input's text. */
typedef struct {
    char field[INPUT_FIELD_LEN];
    char problem[INPUT_PROBLEM_LEN];
} input_refusal;

/* Fills `refusal` (field, then the problem as printf words it); returns -1. */
int input_refuse(input_refusal *refusal, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

enum input_kind { INPUT_SCALAR, INPUT_LIST, INPUT_MAP };

/* A node as the walk sees it: its line (from 1; 0 when not known), its kind and, for a list
 * or a map, how many entries it has. */
typedef struct {
    size_t line;
    enum input_kind kind;
    size_t count;
} input_node;

/* A reader's tree: `context` is the reader's (its document), `node` describes one of its
 * nodes, `entry` gives entry i of a list or map and, for a map, the entry's key (NULL when it
 * is not a scalar) and the key's line. */
typedef struct input_tree input_tree;
struct input_tree {
    const void *context;
    input_node (*node)(const input_tree *tree, const void *node);
    const void *(*entry)(const input_tree *tree, const void *node, size_t i, const char **key,
                         size_t *key_line);
};

/* The line of the key path `field` from `root`: its key's, or where the key is missing or
 * the path goes on inside a value, the line of the nearest map or list holding it; 0 when
 * the tree has no line for it. */
size_t input_field_line(const input_tree *tree, const void *root, const char *field);

#ifdef __cplusplus
}
#endif

#endif
