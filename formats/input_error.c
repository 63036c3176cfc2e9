#include "input_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void input_error_text(char *out, size_t len, const char *file, size_t line, const char *field,
                      const char *problem)
{
    char where[64] = "";
    if (line)
        snprintf(where, sizeof where, ":%zu", line);
    snprintf(out, len, "%s%s%s%s%s%s", file ? file : "", where, file ? ": " : "", field,
             *field ? ": " : "", problem);
}

int input_error_vtext(char *out, size_t len, const char *file, size_t line, const char *field,
                      const char *fmt, va_list args)
{
    char problem[INPUT_PROBLEM_LEN];
    vsnprintf(problem, sizeof problem, fmt, args);
    input_error_text(out, len, file, line, field, problem);
    return -1;
}

int input_refuse(input_refusal *refusal, const char *field, const char *fmt, ...)
{
    va_list args;
    snprintf(refusal->field, sizeof refusal->field, "%s", field);
    va_start(args, fmt);
    vsnprintf(refusal->problem, sizeof refusal->problem, fmt, args);
    va_end(args);
    return -1;
}

/* The index of the list item `[N]` at the start of *rest (moving *rest past it), or -1. */
static long long list_index(const char **rest, size_t count)
{
    char *end;
    const char *text = *rest;
    if (text[0] != '[' || text[1] < '0' || text[1] > '9')
        return -1;
    unsigned long long i = strtoull(text + 1, &end, 10);
    if (*end != ']' || i >= count)
        return -1;
    *rest = end + 1;
    return (long long)i;
}

/* The entry of a map whose key is the longest that starts *rest and ends where a key of the
 * path does (at its end, a '.', a '[' or a space), moving *rest past the key; NULL if none. */
static const void *map_entry(const input_tree *tree, const void *map, size_t count,
                             const char **rest, size_t *key_line)
{
    const void *found = NULL;
    size_t longest = 0;
    for (size_t i = 0; i < count; i++) {
        const char *key;
        size_t line;
        const void *value = tree->entry(tree, map, i, &key, &line);
        size_t n = key ? strlen(key) : 0;
        if (!key || (found && n <= longest) || strncmp(*rest, key, n) != 0
            || !strchr(".[ ", (*rest)[n]))
            continue;
        found = value;
        longest = n;
        *key_line = line;
    }
    if (found)
        *rest += longest;
    return found;
}

size_t input_field_line(const input_tree *tree, const void *root, const char *field)
{
    const char *rest = field;
    size_t line = 0;
    for (const void *node = root; node;) {
        input_node n = tree->node(tree, node);
        size_t key_line = 0;
        line = n.line;
        while (*rest == '.')
            rest++;
        const void *next = NULL;
        if (n.kind == INPUT_LIST) {
            long long i = list_index(&rest, n.count);
            next = i < 0 ? NULL : tree->entry(tree, node, (size_t)i, NULL, NULL);
        } else if (n.kind == INPUT_MAP && *rest) {
            next = map_entry(tree, node, n.count, &rest, &key_line);
            next = *rest ? next : NULL;
        }
        line = key_line ? key_line : line;
        node = next;
    }
    return line;
}
