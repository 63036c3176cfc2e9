#include "doc_yaml.h"

#include "input_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* A list or map being built: its entries so far (a map's: key, value, key, value...). */
typedef struct {
    doc_node *node;
    const char *anchor;
    doc_node **entries;
    size_t *lines;  /* the line of each entry */
    size_t count, cap;
} frame;

typedef struct {
    const char *name;
    doc_node *node;
} anchor;

typedef struct {
    doc *d;
    int floats;
    frame *stack;
    size_t depth, stack_cap;
    anchor *anchors;  /* open addressing, a power of two long */
    size_t nanchors, anchors_cap;
    size_t nodes;
    doc_node *root;
    int documents;
    const char *source;
    char *err;
    size_t errlen;
} builder;

/* The refusal "SOURCE:LINE: FIELD: problem" (formats/input_error.h) in b->err, FIELD the key
 * path of the node refused; returns -1. */
static int fail_at(builder *b, size_t line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(builder *b, size_t line, const char *field, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    input_error_vtext(b->err, b->errlen, b->source, line, field, fmt, args);
    va_end(args);
    return -1;
}

/* The document refused as a whole at `line`. */
#define fail(b, line, ...) fail_at(b, line, "", __VA_ARGS__)

/* `key` appended to the key path `out` as error messages name keys: `path.key`. */
static void append_key(char *out, size_t len, const char *key)
{
    char shown[256];
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s", used ? "." : "",
             key ? doc_key_text(key, shown, sizeof shown) : "?");
}

/* The key path of the next node of the open collections (a list's next item, a map's value
 * of its last key; a map's next key is at the map's own path), as
 * iotwin.core.yaml_files names the node being composed. */
static void position(const builder *b, char *out, size_t len)
{
    *out = '\0';
    for (size_t k = 0; k < b->depth; k++) {
        const frame *f = &b->stack[k];
        size_t used = strlen(out);
        if (f->node->kind == DOC_LIST)
            snprintf(out + used, len - used, "[%zu]", f->count);
        else if (f->count % 2)
            append_key(out, len, f->entries[f->count - 1]->text);
    }
}

/* Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as Python's
 * decoder: the offset of the first byte of the first bad sequence, or -1. */
static long utf8_error(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t extra = 0;
        unsigned char low = 0x80, high = 0xBF;
        if (c < 0x80)
            extra = 0;
        else if (c >= 0xC2 && c <= 0xDF)
            extra = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            extra = 2, low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
        else if (c >= 0xF0 && c <= 0xF4)
            extra = 3, low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
        else
            return (long)i;
        for (size_t k = 1; k <= extra; k++) {
            unsigned char next = i + k < len ? s[i + k] : 0;
            unsigned char lo = k == 1 ? low : 0x80, hi = k == 1 ? high : 0xBF;
            if (next < lo || next > hi)
                return (long)i;
        }
        i += 1 + extra;
    }
    return -1;
}

/* The key path `field` without its trailing list items: the key whose value nests too deep,
 * as iotwin.core.yaml_files names it (libyaml may meet its own bound ahead of the items). */
static const char *nesting_key(char *field)
{
    size_t n = strlen(field);
    while (n && field[n - 1] == ']') {
        char *open = strrchr(field, '[');
        if (!open)
            break;
        *open = '\0';
        n = strlen(field);
    }
    return field;
}

/* --- anchors -------------------------------------------------------------------------------- */

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static anchor *anchor_slot(builder *b, const char *name)
{
    if (!b->anchors_cap)
        return NULL;
    for (size_t k = hash(name) & (b->anchors_cap - 1);; k = (k + 1) & (b->anchors_cap - 1))
        if (!b->anchors[k].name || !strcmp(b->anchors[k].name, name))
            return &b->anchors[k];
}

static int anchor_add(builder *b, const char *name, doc_node *node)
{
    if (2 * (b->nanchors + 1) > b->anchors_cap) {
        anchor *old = b->anchors;
        size_t old_cap = b->anchors_cap;
        b->anchors_cap = old_cap ? 2 * old_cap : 16;
        b->anchors = calloc(b->anchors_cap, sizeof *b->anchors);
        if (!b->anchors)
            return -1;
        for (size_t k = 0; k < old_cap; k++)
            if (old[k].name)
                *anchor_slot(b, old[k].name) = old[k];
        free(old);
    }
    *anchor_slot(b, name) = (anchor){name, node};
    b->nanchors++;
    return 0;
}

static int anchor_is_open(const builder *b, const char *name)
{
    for (size_t k = 0; k < b->depth; k++)
        if (b->stack[k].anchor && !strcmp(b->stack[k].anchor, name))
            return 1;
    return 0;
}

/* A new anchor's name (copied into the document), or an error if it is taken. */
static int new_anchor(builder *b, const yaml_char_t *name, size_t line, const char **out)
{
    *out = NULL;
    if (!name)
        return 0;
    anchor *slot = anchor_slot(b, (const char *)name);
    if ((slot && slot->name) || anchor_is_open(b, (const char *)name))
        return fail(b, line, "found duplicate anchor '%s'", name);
    *out = doc_copy_text(b->d, (const char *)name, strlen((const char *)name));
    return *out ? 0 : fail(b, line, "out of memory");
}

/* --- building --------------------------------------------------------------------------------- */

/* Counts `nodes` more nodes at nesting `depth`, the next node's. */
static int count(builder *b, size_t nodes, size_t depth, size_t line)
{
    char field[INPUT_FIELD_LEN];
    b->nodes += nodes;
    if (depth <= DOC_MAX_DEPTH && b->nodes <= DOC_MAX_NODES)
        return 0;
    position(b, field, sizeof field);
    if (depth > DOC_MAX_DEPTH)
        return fail_at(b, line, nesting_key(field), "nested deeper than %d lists and mappings",
                       DOC_MAX_DEPTH);
    return fail_at(b, line, field, "more than %u nodes (aliases counted expanded)",
                   DOC_MAX_NODES);
}

/* Adds a finished node to the open collection (or makes it the root). */
static int attach(builder *b, doc_node *node, size_t line)
{
    if (!b->depth) {
        b->root = node;
        return 0;
    }
    frame *f = &b->stack[b->depth - 1];
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        doc_node **entries = realloc(f->entries, cap * sizeof *entries);
        size_t *lines = realloc(f->lines, cap * sizeof *lines);
        if (entries)
            f->entries = entries;
        if (lines)
            f->lines = lines;
        if (!entries || !lines)
            return fail(b, line, "out of memory");
        f->cap = cap;
    }
    f->lines[f->count] = line;
    f->entries[f->count++] = node;
    return 0;
}

static int open_collection(builder *b, doc_kind kind, const yaml_event_t *e, size_t line)
{
    const yaml_char_t *tag = kind == DOC_LIST ? e->data.sequence_start.tag
                                              : e->data.mapping_start.tag;
    const yaml_char_t *name = kind == DOC_LIST ? e->data.sequence_start.anchor
                                               : e->data.mapping_start.anchor;
    if (tag)
        return fail(b, line, "explicit tag %s (the format uses no tags)", tag);
    if (count(b, 1, b->depth + 1, line))
        return -1;
    if (b->depth == b->stack_cap) {
        size_t cap = b->stack_cap ? 2 * b->stack_cap : 8;
        frame *stack = realloc(b->stack, cap * sizeof *stack);
        if (!stack)
            return fail(b, line, "out of memory");
        b->stack = stack;
        b->stack_cap = cap;
    }
    frame *f = &b->stack[b->depth];
    *f = (frame){doc_new(b->d, kind), NULL, NULL, NULL, 0, 0};
    if (!f->node || new_anchor(b, name, line, &f->anchor))
        return f->node ? -1 : fail(b, line, "out of memory");
    f->node->line = line;
    b->depth++;
    return 0;
}

typedef struct {
    const char *text;
    size_t index;
} key_at;

static int by_key(const void *x, const void *y)
{
    const key_at *a = x, *b = y;
    int order = strcmp(a->text, b->text);
    return order ? order : (a->index > b->index) - (a->index < b->index);
}

/* The index of the first key (in document order) that repeats an earlier one, or `pairs`. */
static size_t first_duplicate(const doc_node *map, size_t pairs)
{
    key_at *keys = malloc(pairs * sizeof *keys);
    size_t first = pairs;
    if (!keys)
        return pairs;
    for (size_t k = 0; k < pairs; k++)
        keys[k] = (key_at){map->keys[k], k};
    qsort(keys, pairs, sizeof *keys, by_key);
    for (size_t k = 1; k < pairs; k++)
        if (!strcmp(keys[k].text, keys[k - 1].text) && keys[k].index < first)
            first = keys[k].index;
    free(keys);
    return first;
}

static int fill_map(builder *b, frame *f, size_t line)
{
    doc_node *n = f->node;
    size_t pairs = f->count / 2;
    if (doc_make_entries(b->d, n, pairs))
        return fail(b, line, "out of memory");
    for (size_t k = 0; k < pairs; k++) {
        doc_node *key = f->entries[2 * k];
        if (key->kind == DOC_LIST || key->kind == DOC_MAP)
            return fail(b, f->lines[2 * k], "a mapping key must be a scalar");
        n->keys[k] = key->text;
        n->key_lines[k] = key->line;
        n->items[k] = f->entries[2 * k + 1];
    }
    size_t repeated = first_duplicate(n, pairs);
    if (repeated == pairs)
        return 0;
    char field[INPUT_FIELD_LEN];
    position(b, field, sizeof field);  /* the map's own: its frame is closed */
    append_key(field, sizeof field, n->keys[repeated]);
    return fail_at(b, f->lines[2 * repeated], field, "duplicate key");
}

static int close_collection(builder *b, size_t line)
{
    frame *f = &b->stack[--b->depth];
    doc_node *n = f->node;
    int rc = 0;
    if (n->kind == DOC_MAP) {
        rc = fill_map(b, f, line);
    } else if (doc_make_entries(b->d, n, f->count)) {
        rc = fail(b, line, "out of memory");
    } else if (f->count) {
        memcpy(n->items, f->entries, f->count * sizeof *n->items);
    }
    free(f->entries);
    free(f->lines);
    if (rc)
        return rc;
    doc_measure(n);
    if (f->anchor && anchor_add(b, f->anchor, n))
        return fail(b, line, "out of memory");
    return attach(b, n, line);
}

static int scalar(builder *b, const yaml_event_t *e, size_t line)
{
    const char *name;
    if (e->data.scalar.tag)
        return fail(b, line, "explicit tag %s (the format uses no tags)", e->data.scalar.tag);
    if (count(b, 1, b->depth, line) || new_anchor(b, e->data.scalar.anchor, line, &name))
        return -1;
    doc_node *n = doc_scalar(b->d, (const char *)e->data.scalar.value, e->data.scalar.length,
                             e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE, b->floats);
    if (!n)
        return fail(b, line, "out of memory");
    n->line = line;
    if (name && anchor_add(b, name, n))
        return fail(b, line, "out of memory");
    return attach(b, n, line);
}

static int alias(builder *b, const yaml_event_t *e, size_t line)
{
    const char *name = (const char *)e->data.alias.anchor;
    if (anchor_is_open(b, name))
        return fail(b, line, "the alias *%s is inside its own anchor", name);
    anchor *slot = anchor_slot(b, name);
    if (!slot || !slot->name)
        return fail(b, line, "found undefined alias '%s'", name);
    if (count(b, slot->node->size, b->depth + (size_t)slot->node->height, line))
        return -1;
    return attach(b, slot->node, line);
}

static int event(builder *b, const yaml_event_t *e)
{
    size_t line = e->start_mark.line + 1;
    switch (e->type) {
    case YAML_DOCUMENT_START_EVENT:
        return ++b->documents > 1 ? fail(b, line, "malformed YAML: but found another document")
                                  : 0;
    case YAML_SCALAR_EVENT: return scalar(b, e, line);
    case YAML_ALIAS_EVENT: return alias(b, e, line);
    case YAML_SEQUENCE_START_EVENT: return open_collection(b, DOC_LIST, e, line);
    case YAML_MAPPING_START_EVENT: return open_collection(b, DOC_MAP, e, line);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: return close_collection(b, line);
    default: return 0;
    }
}

static int parse(builder *b, const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_event_t e;
    int rc = 0, done = 0;
    yaml_parser_initialize(&parser);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!rc && !done) {
        if (!yaml_parser_parse(&parser, &e)) {
            const char *problem = parser.problem ? parser.problem : "unreadable";
            char field[INPUT_FIELD_LEN];
            position(b, field, sizeof field);  /* where the nesting starts */
            if (!strcmp(problem, "exceeded maximum nesting depth"))  /* libyaml's own bound */
                rc = fail_at(b, parser.problem_mark.line + 1, nesting_key(field), "nested "
                             "deeper than %d lists and mappings", DOC_MAX_DEPTH);
            else
                rc = fail(b, parser.problem_mark.line + 1, "malformed YAML: %s", problem);
            break;
        }
        done = e.type == YAML_STREAM_END_EVENT;
        rc = event(b, &e);
        yaml_event_delete(&e);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int doc_from_yaml(const char *text, size_t len, int floats, const char *source, doc *d,
                  doc_node **root, char *err, size_t errlen)
{
    builder b = {d, floats, NULL, 0, 0, NULL, 0, 0, 0, NULL, 0, source, err, errlen};
    long bad = utf8_error((const unsigned char *)text, len);
    int rc;
    unsigned long odd;
    size_t line;
    if (bad >= 0)
        return fail(&b, 0, "not UTF-8 text (byte 0x%02x at offset %ld)",
                    (unsigned char)text[bad], bad);
    if ((line = doc_unwritten_character(text, len, &odd)))
        return fail(&b, line, "U+%04lX written as itself (escape it)", odd);
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))  /* a byte order mark */
        text += 3, len -= 3;
    rc = parse(&b, text, len);
    while (b.depth) {
        b.depth--;
        free(b.stack[b.depth].entries);
        free(b.stack[b.depth].lines);
    }
    free(b.stack);
    free(b.anchors);
    if (rc)
        return rc;
    *root = b.root ? b.root : doc_new(d, DOC_NULL);
    return *root ? 0 : (snprintf(err, errlen, "out of memory"), -1);
}

int doc_from_yaml_file(const char *path, int floats, doc *d, doc_node **root, char *err,
                       size_t errlen)
{
    FILE *in = fopen(path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: cannot read the workload: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len == cap) {
            char *grown = realloc(text, cap = cap ? 2 * cap : 65536);
            if (!grown) {
                free(text);
                fclose(in);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            text = grown;
        }
        got = fread(text + len, 1, cap - len, in);
        len += got;
    } while (got);
    fclose(in);
    int rc = doc_from_yaml(text ? text : "", len, floats, path, d, root, err, errlen);
    free(text);
    return rc;
}
