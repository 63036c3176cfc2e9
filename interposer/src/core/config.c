/* Parse and validate the tuning config with libyaml, driven by the generated key table.
 * Error messages are worded as iotwin.config words them (the phrases come from the schema),
 * each naming the file, the line and the field. */
#define _GNU_SOURCE
#include "core/config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/json.h"
#include "input_error.h"
#include "iotwin_rules.h"

#define PATH_LEN 512

/* S_BIG: decimal digits beyond a long long (an integer no key accepts, not a string) */
enum scalar_kind { S_NULL, S_BOOL, S_INT, S_BIG, S_STR, S_LIST, S_MAP };

struct walker {
    yaml_document_t *doc;
    const char *source;
    char *err;
    size_t errlen;
};

/* --- errors: FILE:LINE: FIELD: problem (formats/input_error.h) ----------------------------- */

static input_node describe_node(const input_tree *tree, const void *node)
{
    const yaml_node_t *n = node;
    (void)tree;
    if (n->type == YAML_SEQUENCE_NODE)
        return (input_node){n->start_mark.line + 1, INPUT_LIST,
                            (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)};
    if (n->type == YAML_MAPPING_NODE)
        return (input_node){n->start_mark.line + 1, INPUT_MAP,
                            (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start)};
    return (input_node){n->start_mark.line + 1, INPUT_SCALAR, 0};
}

static const void *node_entry(const input_tree *tree, const void *node, size_t i,
                              const char **key, size_t *key_line)
{
    yaml_document_t *doc = (yaml_document_t *)tree->context;
    const yaml_node_t *n = node;
    if (n->type == YAML_SEQUENCE_NODE)
        return yaml_document_get_node(doc, n->data.sequence.items.start[i]);
    yaml_node_pair_t *pair = &n->data.mapping.pairs.start[i];
    const yaml_node_t *name = yaml_document_get_node(doc, pair->key);
    *key = name->type == YAML_SCALAR_NODE ? (const char *)name->data.scalar.value : NULL;
    *key_line = name->start_mark.line + 1;
    return yaml_document_get_node(doc, pair->value);
}

/* The line of the key path `path` in the document: its key's (input_field_line). */
static size_t field_line(const struct walker *w, const char *path)
{
    const input_tree tree = {w->doc, describe_node, node_entry};
    return input_field_line(&tree, yaml_document_get_root_node(w->doc), path);
}

/* The document refused at `line`, at the key path `field` (empty: as a whole, malformed), as
 * iotwin.core.yaml_files words it: "FILE:LINE: FIELD: problem". */
static int fail_at(struct walker *w, size_t line, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(struct walker *w, size_t line, const char *field, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    input_error_vtext(w->err, w->errlen, w->source, line, field, fmt, args);
    va_end(args);
    return -1;
}

/* The field `path` refused, at its line. */
#define fail(w, path, ...) fail_at(w, field_line(w, path), path, __VA_ARGS__)

/* --- scalars, resolved as YAML 1.2's core schema (iotwin.config._ConfigLoader) ------------ */

static int matches_any(const char *text, const char *const *words)
{
    for (; *words; words++)
        if (strcmp(text, *words) == 0)
            return 1;
    return 0;
}

static int is_decimal(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    if (!*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

static enum scalar_kind classify(const yaml_node_t *node, long long *number)
{
    static const char *const nulls[] = {"~", "null", "Null", "NULL", "", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    if (node->type == YAML_SEQUENCE_NODE)
        return S_LIST;
    if (node->type == YAML_MAPPING_NODE)
        return S_MAP;
    const char *text = (const char *)node->data.scalar.value;
    if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return S_STR;
    if (matches_any(text, nulls))
        return S_NULL;
    if (matches_any(text, trues) || matches_any(text, falses)) {
        *number = matches_any(text, trues);
        return S_BOOL;
    }
    if (is_decimal(text)) {
        errno = 0;
        *number = strtoll(text, NULL, 10);
        return errno == ERANGE ? S_BIG : S_INT;
    }
    return S_STR;
}

/* `text` as a JSON string into out (cut at len - 1 bytes, as messages quote it). */
static void quote_into(const char *text, char *out, size_t len)
{
    struct buf quoted = {NULL, 0, 0, 0};
    put_string(&quoted, text);
    buf_copy_out(&quoted, out, len);
}

/* A value as error messages quote it: iotwin.config.describe. */
static const char *describe(const yaml_node_t *node, char *out, size_t len)
{
    long long number = 0;
    switch (classify(node, &number)) {
    case S_NULL: return "null";
    case S_BOOL: return number ? "true" : "false";
    case S_LIST: return "a list";
    case S_MAP: return "a mapping";
    case S_INT: snprintf(out, len, "%lld", number); return out;
    case S_BIG: snprintf(out, len, "%s", (const char *)node->data.scalar.value); return out;
    case S_STR: quote_into((const char *)node->data.scalar.value, out, len); return out;
    }
    return "?";
}

static const char *scalar_text(const yaml_node_t *node)
{
    return (const char *)node->data.scalar.value;
}

/* Whether a code point must not be in a string of a config: the C0 and C1 controls, DEL, the
 * line and paragraph separators, the bidirectional overrides and isolates, surrogates and the
 * noncharacters U+FFFE and U+FFFF (the tuner's iotwin.core.text.control_character, the same
 * set). */
static int is_control(unsigned int c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
           (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           (c >= 0xd800 && c <= 0xdfff) || c == 0xfffe || c == 0xffff;
}

/* The code point of the UTF-8 sequence at text[*i] (advancing *i past it); a byte that starts
 * no valid sequence is taken as itself, as the validator's reading of the file refuses it. */
static unsigned int next_code_point(const unsigned char *text, size_t length, size_t *i)
{
    unsigned int c = text[(*i)++];
    int more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (more == 0 || *i + (size_t)more > length)
        return c;
    c &= 0x3fu >> more;
    while (more-- > 0)
        c = (c << 6) | (text[(*i)++] & 0x3fu);
    return c;
}

/* The first control character of a scalar (is_control), its length read in full so that a NUL
 * is seen; -1 if none. */
static int control_character(const yaml_node_t *node)
{
    const unsigned char *text = node->data.scalar.value;
    if (node->type != YAML_SCALAR_NODE)
        return -1;
    for (size_t i = 0; i < node->data.scalar.length;) {
        unsigned int c = next_code_point(text, node->data.scalar.length, &i);
        if (is_control(c))
            return (int)c;
    }
    return -1;
}

/* Names, hints and patterns hold no control character: a newline would make a false line of
 * the report, and a NUL would cut the text short. */
static int refuse_control(struct walker *w, const yaml_node_t *node, const char *path,
                          const char *what)
{
    int c = control_character(node);
    return c < 0 ? 0 : fail(w, path, "%s a control character (U+%04X)", what, c);
}

static void join(char *out, const char *path, const char *name)
{
    snprintf(out, PATH_LEN, *path ? "%s.%s" : "%s%s", path, name);
}

/* --- typed values -------------------------------------------------------------------------- */

static int in_bounds(const struct iot_key *key, long long value)
{
    return (!key->has_min || value >= key->min) && (!key->has_max || value <= key->max)
        && (!key->multiple_of || value % key->multiple_of == 0);
}

static int expected(struct walker *w, const struct iot_key *key, const yaml_node_t *node,
                    const char *path)
{
    char shown[PATH_LEN];
    return fail(w, path, "expected %s, got %s", key->expected, describe(node, shown, sizeof shown));
}

/* An int or size, compared with its bounds before any narrowing: an int key's value goes to
 * MPI and Lustre as a C int. */
static int read_number(const struct iot_key *key, const yaml_node_t *node, long long *value)
{
    enum scalar_kind kind = classify(node, value);
    if (key->type == IOT_SIZE && kind == S_STR)
        return iot_parse_size(scalar_text(node), value) == 0 && in_bounds(key, *value) ? 0 : -1;
    if (kind != S_INT || (key->type == IOT_SIZE && *value < 0))
        return -1;
    if (key->type == IOT_INT && (*value < INT_MIN || *value > INT_MAX))
        return -1;
    return in_bounds(key, *value) ? 0 : -1;
}

static int read_enum(const struct iot_key *key, const yaml_node_t *node, long long *index)
{
    long long unused;
    if (classify(node, &unused) != S_STR)
        return -1;
    for (int i = 0; key->values[i]; i++)
        if (strcmp(key->values[i], scalar_text(node)) == 0) {
            *index = i;
            return 0;
        }
    return -1;
}

static int read_int_list(struct walker *w, const yaml_node_t *node, const char *path,
                         struct iot_value *value)
{
    yaml_node_item_t *items = node->data.sequence.items.start;
    int n = (int)(node->data.sequence.items.top - items);
    value->list = calloc((size_t)n, sizeof *value->list);
    value->nlist = n;
    for (int i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(w->doc, items[i]);
        char item_path[PATH_LEN + 16], shown[PATH_LEN];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        if (refuse_control(w, item, item_path, "holds"))
            return -1;
        if (classify(item, &value->list[i]) != S_INT || value->list[i] < 1) {
            return fail(w, item_path, "expected a positive integer, got %s",
                        describe(item, shown, sizeof shown));
        }
    }
    return 0;
}

static int read_string_map(struct walker *w, const yaml_node_t *node, const char *path,
                           struct iot_value *value)
{
    yaml_node_pair_t *pairs = node->data.mapping.pairs.start;
    int n = (int)(node->data.mapping.pairs.top - pairs);
    value->names = calloc((size_t)n, sizeof *value->names);
    value->values = calloc((size_t)n, sizeof *value->values);
    for (int i = 0; i < n; i++) {
        yaml_node_t *name = yaml_document_get_node(w->doc, pairs[i].key);
        yaml_node_t *item = yaml_document_get_node(w->doc, pairs[i].value);
        long long number = 0;
        char item_path[PATH_LEN], shown[PATH_LEN];
        enum scalar_kind name_kind = classify(name, &number);
        enum scalar_kind kind = classify(item, &number);
        join(item_path, path, name->type == YAML_SCALAR_NODE ? scalar_text(name) : "?");
        if (refuse_control(w, name, path, "a key holds")
            || refuse_control(w, item, item_path, "holds"))
            return -1;
        if (name_kind != S_STR || kind == S_NULL || kind == S_LIST || kind == S_MAP) {
            return fail(w, item_path, "expected a string value, got %s",
                        describe(item, shown, sizeof shown));
        }
        value->names[i] = strdup(scalar_text(name));
        value->values[i] = strdup(kind == S_STR ? scalar_text(item) : describe(item, shown,
                                                                               sizeof shown));
        value->nmap = i + 1;
    }
    return 0;
}

static int walk_keys(struct walker *w, const yaml_node_t *node, int parent_key, int block,
                     const char *path, struct iot_settings *s);
static int read_record_list(struct walker *w, int id, const yaml_node_t *node, const char *path,
                            struct iot_value *value);

static int check_match_glob(struct walker *w, int id, const char *text, const char *path)
{
    if ((id == IOT_K_SCOPE_FILE_MATCH || id == IOT_K_SCOPE_DATASET_MATCH) && strstr(text, "[^"))
        return fail(w, path, "'[^' means different things to fnmatch implementations; "
                             "write '[!' to negate a set");
    return 0;
}

static int read_value(struct walker *w, int id, const yaml_node_t *node, const char *path,
                      struct iot_settings *s)
{
    const struct iot_key *key = &IOT_KEYS[id];
    struct iot_value *value = &s->v[id];
    long long number = 0;
    enum scalar_kind kind = classify(node, &number);
    value->set = 1;
    if (kind == S_STR && refuse_control(w, node, path, "holds"))
        return -1;
    switch (key->type) {
    case IOT_SIZE:
        if (kind == S_STR && read_enum(key, node, &number) == 0) {   /* a word: `end: eof` */
            value->s = strdup(scalar_text(node));
            value->i = -1;
            return 0;
        }
        /* fall through */
    case IOT_INT:
        return read_number(key, node, &value->i) ? expected(w, key, node, path) : 0;
    case IOT_BOOL:
        value->i = number;
        return kind == S_BOOL ? 0 : expected(w, key, node, path);
    case IOT_ENUM:
        return read_enum(key, node, &value->i) ? expected(w, key, node, path) : 0;
    case IOT_STRING:
        if (kind != S_STR)
            return expected(w, key, node, path);
        value->s = strdup(scalar_text(node));
        return check_match_glob(w, id, value->s, path);
    case IOT_INT_LIST:
        if (kind != S_LIST || node->data.sequence.items.top == node->data.sequence.items.start)
            return expected(w, key, node, path);
        return read_int_list(w, node, path, value);
    case IOT_STRING_MAP:
        return kind == S_MAP ? read_string_map(w, node, path, value)
                             : expected(w, key, node, path);
    case IOT_RECORD:
        return kind == S_MAP ? walk_keys(w, node, id, key->block, path, s)
                             : expected(w, key, node, path);
    case IOT_RECORD_LIST:
        if (kind != S_LIST || node->data.sequence.items.top == node->data.sequence.items.start)
            return expected(w, key, node, path);
        return read_record_list(w, id, node, path, value);
    }
    return -1;
}

/* --- blocks and scopes --------------------------------------------------------------------- */

/* Keys of `block` whose parent is parent_key (-1: the block's own keys), comma separated. */
static void key_names(int parent_key, int block, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int id = 0; id < IOT_NKEYS && n < len; id++)
        if (IOT_KEYS[id].block == block && IOT_KEYS[id].parent == parent_key)
            n += snprintf(out + n, len - n, "%s%s", n ? ", " : "", IOT_KEYS[id].name);
}

static int find_key(int parent_key, int block, const char *name)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].block == block && IOT_KEYS[id].parent == parent_key
            && strcmp(IOT_KEYS[id].name, name) == 0)
            return id;
    return -1;
}

/* Set, and not a bool set to false (which excludes nothing). */
static int is_on(int id, const struct iot_settings *s)
{
    return s->v[id].set && !(IOT_KEYS[id].type == IOT_BOOL && s->v[id].i == 0);
}

static int check_exclusive(struct walker *w, int block, const char *path,
                           const struct iot_settings *s)
{
    char key_path[PATH_LEN];
    for (int id = 0; id < IOT_NKEYS; id++) {
        int other = IOT_KEYS[id].exclusive_with;
        if (IOT_KEYS[id].block == block && other >= 0 && s->v[id].set && is_on(other, s)) {
            join(key_path, path, IOT_KEYS[id].name);
            return fail(w, key_path, "cannot be combined with %s", IOT_KEYS[other].name);
        }
    }
    return 0;
}

static int expect_mapping(struct walker *w, const yaml_node_t *node, const char *path,
                          const char *what)
{
    char shown[PATH_LEN];
    if (node->type == YAML_MAPPING_NODE)
        return 0;
    return fail(w, path, "expected %s, got %s", what, describe(node, shown, sizeof shown));
}

static int walk_keys(struct walker *w, const yaml_node_t *node, int parent_key, int block,
                     const char *path, struct iot_settings *s)
{
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *name = yaml_document_get_node(w->doc, pair->key);
        const char *text = name->type == YAML_SCALAR_NODE ? scalar_text(name) : "?";
        char key_path[PATH_LEN], known[PATH_LEN];
        if (refuse_control(w, name, path, "a key holds"))
            return -1;
        join(key_path, path, text);
        int id = find_key(parent_key, block, text);
        if (id < 0) {
            key_names(parent_key, block, known, sizeof known);
            return fail(w, key_path, "unknown key (expected one of %s)", known);
        }
        if (read_value(w, id, yaml_document_get_node(w->doc, pair->value), key_path, s))
            return -1;
    }
    return 0;
}

static int walk_block(struct walker *w, int block, const yaml_node_t *node, const char *path,
                      struct iot_settings *s)
{
    char what[64];
    snprintf(what, sizeof what, "a mapping of %s settings", IOT_BLOCK_NAMES[block]);
    if (expect_mapping(w, node, path, what) || walk_keys(w, node, -1, block, path, s))
        return -1;
    return check_exclusive(w, block, path, s);
}

/* --- record lists (iotwin.config.schema's check_record_list, in the same order) ----------- */

static int check_required_fields(struct walker *w, int parent, const char *path,
                                 const struct iot_settings *s)
{
    char key_path[PATH_LEN];
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].parent == parent && IOT_KEYS[id].required && !s->v[id].set) {
            join(key_path, path, IOT_KEYS[id].name);
            return fail(w, key_path, "required key is missing");
        }
    return 0;
}

/* Entry i against the one before: a first-only field, and the increasing field beyond the
 * previous entry's (a word, such as eof, is beyond every size). */
static int check_entry(struct walker *w, int list, const struct iot_value *value, int i,
                       const char *list_path, const char *path)
{
    const struct iot_settings *s = &value->records[i];
    char key_path[PATH_LEN + 32];
    for (int id = 0; id < IOT_NKEYS && i > 0; id++)
        if (IOT_KEYS[id].parent == list && IOT_KEYS[id].first_only && is_on(id, s)) {
            join(key_path, path, IOT_KEYS[id].name);
            return fail(w, key_path, "only the first entry may set it");
        }
    int field = IOT_KEYS[list].increasing;
    if (i == 0 || field < 0 || !s->v[field].set)
        return 0;
    const struct iot_value *previous = &value->records[i - 1].v[field], *now = &s->v[field];
    if (previous->s) {
        snprintf(key_path, sizeof key_path, "%s[%d].%s", list_path, i - 1, IOT_KEYS[field].name);
        return fail(w, key_path, "only the last entry may be %s", previous->s);
    }
    join(key_path, path, IOT_KEYS[field].name);
    if (!now->s && now->i <= previous->i)
        return fail(w, key_path, "expected more than %lld (the previous entry's %s), got %lld",
                    previous->i, IOT_KEYS[field].name, now->i);
    return 0;
}

static int check_last(struct walker *w, int list, const struct iot_value *value,
                      const char *list_path)
{
    int field = IOT_KEYS[list].last_field;
    if (field < 0)
        return 0;
    const struct iot_value *last = &value->records[value->nrecords - 1].v[field];
    if (last->s && strcmp(last->s, IOT_KEYS[list].last_word) == 0)
        return 0;
    char key_path[PATH_LEN + 32], shown[PATH_LEN];
    snprintf(key_path, sizeof key_path, "%s[%d].%s", list_path, value->nrecords - 1,
             IOT_KEYS[field].name);
    if (!last->set)
        snprintf(shown, sizeof shown, "null");
    else if (last->s)
        quote_into(last->s, shown, sizeof shown);
    else
        snprintf(shown, sizeof shown, "%lld", last->i);
    return fail(w, key_path, "expected %s in the last entry, got %s", IOT_KEYS[list].last_word,
                shown);
}

static int read_record_list(struct walker *w, int id, const yaml_node_t *node, const char *path,
                            struct iot_value *value)
{
    yaml_node_item_t *items = node->data.sequence.items.start;
    int n = (int)(node->data.sequence.items.top - items), block = IOT_KEYS[id].block;
    char what[PATH_LEN], item_path[PATH_LEN];
    if (!(value->records = calloc((size_t)n, sizeof *value->records)))
        return fail(w, path, "out of memory");
    snprintf(what, sizeof what, "a mapping with keys ");
    key_names(id, block, what + strlen(what), sizeof what - strlen(what));
    for (int i = 0; i < n; i++) {
        yaml_node_t *item = yaml_document_get_node(w->doc, items[i]);
        struct iot_settings *s = &value->records[i];
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        value->nrecords = i + 1;
        if (expect_mapping(w, item, item_path, what) || walk_keys(w, item, id, block, item_path, s)
            || check_required_fields(w, id, item_path, s)
            || check_exclusive(w, block, item_path, s)
            || check_entry(w, id, value, i, path, item_path))
            return -1;
    }
    return check_last(w, id, value, path);
}

static int block_index(unsigned bit)
{
    for (int b = 0; b < IOT_NBLOCKS; b++)
        if (bit == 1u << b)
            return b;
    return -1;
}

static int scope_key(const struct iot_scope *scope, const char *name)
{
    for (const int *id = scope->keys; *id >= 0; id++)
        if (strcmp(IOT_KEYS[*id].name, name) == 0)
            return *id;
    return -1;
}

static int block_named(unsigned allowed, const char *name)
{
    for (int b = 0; b < IOT_NBLOCKS; b++)
        if ((allowed & (1u << b)) && strcmp(IOT_BLOCK_NAMES[b], name) == 0)
            return b;
    return -1;
}

/* Keys a scope accepts, in iotwin.config.Schema.allowed_keys order. */
static void scope_key_names(const struct iot_scope *scope, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (const int *id = scope->keys; *id >= 0; id++)
        n += snprintf(out + n, len - n, "%s%s", n ? ", " : "", IOT_KEYS[*id].name);
    for (int b = 0; b < IOT_NBLOCKS; b++)
        if (scope->blocks & (1u << b))
            n += snprintf(out + n, len - n, "%s%s", n ? ", " : "", IOT_BLOCK_NAMES[b]);
    if (scope->list_name)
        n += snprintf(out + n, len - n, "%s%s", n ? ", " : "", scope->list_name);
    if (scope->inline_block && n + 2 < len) {
        n += (size_t)snprintf(out + n, len - n, "%s", n ? ", " : "");
        key_names(-1, block_index(scope->inline_block), out + n, len - n);
    }
}

struct scope_target {
    struct iot_settings *settings;
    struct iot_config *config;       /* top scope: receives `files` */
    struct iot_file_block *file;     /* file scope: receives `datasets` */
};

static int walk_scope(struct walker *w, const yaml_node_t *node, int scope_id, const char *path,
                      struct scope_target target);

static int walk_list(struct walker *w, const yaml_node_t *node, int scope_id, const char *path,
                     struct scope_target parent)
{
    char shown[PATH_LEN], item_path[PATH_LEN + 16];
    if (node->type != YAML_SEQUENCE_NODE)
        return fail(w, path, "expected a list of %s blocks, got %s", IOT_SCOPES[scope_id].name,
                    describe(node, shown, sizeof shown));
    yaml_node_item_t *items = node->data.sequence.items.start;
    int n = (int)(node->data.sequence.items.top - items);
    if (parent.config) {
        parent.config->files = calloc((size_t)n, sizeof *parent.config->files);
        parent.config->nfiles = n;
    } else {
        parent.file->datasets = calloc((size_t)n, sizeof *parent.file->datasets);
        parent.file->ndatasets = n;
    }
    for (int i = 0; i < n; i++) {
        struct scope_target child = {0};
        if (parent.config) {
            child.file = &parent.config->files[i];
            child.settings = &child.file->s;
        } else {
            child.settings = &parent.file->datasets[i].s;
        }
        snprintf(item_path, sizeof item_path, "%s[%d]", path, i);
        if (walk_scope(w, yaml_document_get_node(w->doc, items[i]), scope_id, item_path, child))
            return -1;
    }
    return 0;
}

static int walk_scope_entry(struct walker *w, const struct iot_scope *scope, const char *name,
                            const yaml_node_t *value, const char *path, struct scope_target t)
{
    int id = scope_key(scope, name), block = block_named(scope->blocks, name);
    int inline_block = scope->inline_block ? block_index(scope->inline_block) : -1;
    if (id >= 0)
        return read_value(w, id, value, path, t.settings);
    if (block >= 0)
        return walk_block(w, block, value, path, t.settings);
    if (scope->list_name && strcmp(name, scope->list_name) == 0)
        return walk_list(w, value, scope->list_scope, path, t);
    if (inline_block >= 0 && (id = find_key(-1, inline_block, name)) >= 0)
        return read_value(w, id, value, path, t.settings);
    char known[PATH_LEN];
    scope_key_names(scope, known, sizeof known);
    return fail(w, path, "unknown key (expected one of %s)", known);
}

static int walk_scope(struct walker *w, const yaml_node_t *node, int scope_id, const char *path,
                      struct scope_target target)
{
    const struct iot_scope *scope = &IOT_SCOPES[scope_id];
    char key_path[PATH_LEN];
    if (expect_mapping(w, node, path, "a mapping of config blocks"))
        return -1;
    for (yaml_node_pair_t *pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *name = yaml_document_get_node(w->doc, pair->key);
        const char *text = name->type == YAML_SCALAR_NODE ? scalar_text(name) : "?";
        if (refuse_control(w, name, path, "a key holds"))
            return -1;
        join(key_path, path, text);
        if (walk_scope_entry(w, scope, text, yaml_document_get_node(w->doc, pair->value),
                             key_path, target))
            return -1;
    }
    for (const int *id = scope->keys; *id >= 0; id++)
        if (IOT_KEYS[*id].required && !target.settings->v[*id].set) {
            join(key_path, path, IOT_KEYS[*id].name);
            return fail(w, key_path, "required key is missing");
        }
    if (scope->inline_block)
        return check_exclusive(w, block_index(scope->inline_block), path, target.settings);
    return 0;
}

/* --- document ------------------------------------------------------------------------------ */

static int same_key(const yaml_node_t *a, const yaml_node_t *b)
{
    long long x = 0, y = 0;
    enum scalar_kind ka = classify(a, &x), kb = classify(b, &y);
    if (ka != kb)
        return 0;
    if (ka == S_INT)
        return x == y;
    return ka == S_STR && strcmp(scalar_text(a), scalar_text(b)) == 0;
}

/* The key path of `target` below `node` (at `path`) into `out`; 1 if found. Nesting is
 * bounded by libyaml (1,000 levels); `seen` (a byte a node) visits each node once, since an
 * alias links a node again rather than copying it and a stack of aliases would otherwise be
 * walked once a path to it: a node searched once without `target` cannot hold it later. */
static int node_path(const yaml_document_t *doc, const yaml_node_t *node,
                     const yaml_node_t *target, const char *path, char *out,
                     unsigned char *seen)
{
    char inner[PATH_LEN];
    if (seen[node - doc->nodes.start])
        return 0;
    seen[node - doc->nodes.start] = 1;
    if (node == target) {
        snprintf(out, PATH_LEN, "%s", path);
        return 1;
    }
    if (node->type == YAML_SEQUENCE_NODE) {
        const yaml_node_item_t *first = node->data.sequence.items.start;
        for (const yaml_node_item_t *item = first; item < node->data.sequence.items.top; item++) {
            snprintf(inner, sizeof inner, "%s[%td]", path, item - first);
            if (node_path(doc, yaml_document_get_node((yaml_document_t *)doc, *item), target,
                          inner, out, seen))
                return 1;
        }
    } else if (node->type == YAML_MAPPING_NODE) {
        for (const yaml_node_pair_t *p = node->data.mapping.pairs.start;
             p < node->data.mapping.pairs.top; p++) {
            const yaml_node_t *key = yaml_document_get_node((yaml_document_t *)doc, p->key);
            join(inner, path, key->type == YAML_SCALAR_NODE ? scalar_text(key) : "?");
            if (node_path(doc, yaml_document_get_node((yaml_document_t *)doc, p->value), target,
                          inner, out, seen))
                return 1;
        }
    }
    return 0;
}

/* Duplicate keys are refused (as the Python loader does), in document order, naming the
 * repeated key's path. */
static int check_duplicates(struct walker *w)
{
    for (yaml_node_t *node = w->doc->nodes.start; node < w->doc->nodes.top; node++) {
        if (node->type != YAML_MAPPING_NODE)
            continue;
        for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
             p < node->data.mapping.pairs.top; p++)
            for (yaml_node_pair_t *q = node->data.mapping.pairs.start; q < p; q++) {
                yaml_node_t *key = yaml_document_get_node(w->doc, p->key);
                char map[PATH_LEN] = "", field[PATH_LEN];
                if (!same_key(yaml_document_get_node(w->doc, q->key), key))
                    continue;
                unsigned char *seen = calloc((size_t)(w->doc->nodes.top - w->doc->nodes.start), 1);
                if (seen)
                    node_path(w->doc, yaml_document_get_root_node(w->doc), node, "", map, seen);
                free(seen);
                join(field, map, scalar_text(key));
                return fail_at(w, key->start_mark.line + 1, field, "duplicate key");
            }
    }
    return 0;
}

static int validate_document(struct walker *w, struct iot_config *config)
{
    yaml_node_t *root = yaml_document_get_root_node(w->doc);
    long long unused;
    if (check_duplicates(w))
        return -1;
    if (!root || (root->type == YAML_SCALAR_NODE && classify(root, &unused) == S_NULL))
        return 0;
    struct scope_target target = {.settings = &config->top, .config = config};
    return walk_scope(w, root, IOT_S_TOP, "", target);
}

static int parse_file(FILE *file, const char *path, struct iot_config *config, char *err,
                      size_t errlen)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    struct walker w = {&doc, path, err, errlen};
    int rc = -1;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, file);
    if (!yaml_parser_load(&parser, &doc)) {
        fail_at(&w, parser.problem_mark.line + 1, "", "malformed YAML: %s",
                parser.problem ? parser.problem : "unreadable");
    } else {
        rc = validate_document(&w, config);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* The `match` patterns in the arrays the shared rules take. */
static int collect_patterns(struct iot_config *config)
{
    int n = config->nfiles, total = 0;
    for (int i = 0; i < n; i++)
        total += config->files[i].ndatasets;
    config->file_patterns = calloc((size_t)n + 1, sizeof *config->file_patterns);
    config->first_dataset = calloc((size_t)n + 1, sizeof *config->first_dataset);
    config->dataset_patterns = calloc((size_t)total + 1, sizeof *config->dataset_patterns);
    config->file_rule_used = calloc((size_t)n + 1, sizeof *config->file_rule_used);
    if (!config->file_patterns || !config->first_dataset || !config->dataset_patterns
        || !config->file_rule_used)
        return -1;
    for (int i = 0, j = 0; i < n; i++) {
        const struct iot_file_block *file = &config->files[i];
        config->file_patterns[i] = file->s.v[IOT_K_SCOPE_FILE_MATCH].s;
        config->first_dataset[i] = j;
        for (int k = 0; k < file->ndatasets; k++)
            config->dataset_patterns[j++] = file->datasets[k].s.v[IOT_K_SCOPE_DATASET_MATCH].s;
        config->first_dataset[i + 1] = j;
    }
    return 0;
}

int iot_config_load(const char *path, struct iot_config **out, char *err, size_t errlen)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        snprintf(err, errlen, "%s: cannot read the config: %s", path, strerror(errno));
        return -1;
    }
    struct iot_config *config = calloc(1, sizeof *config);
    int rc = parse_file(file, path, config, err, errlen);
    fclose(file);
    if (rc == 0 && collect_patterns(config) != 0)
        rc = -1, snprintf(err, errlen, "%s: out of memory", path);
    if (rc) {
        iot_config_free(config);
        return -1;
    }
    *out = config;
    return 0;
}

/* --- settings and scoping ------------------------------------------------------------------ */

static void value_clear(struct iot_value *value)
{
    free(value->s);
    free(value->list);
    for (int i = 0; i < value->nmap; i++) {
        free(value->names[i]);
        free(value->values[i]);
    }
    free(value->names);
    free(value->values);
    for (int i = 0; i < value->nrecords; i++)
        iot_settings_clear(&value->records[i]);
    free(value->records);
    memset(value, 0, sizeof *value);
}

void iot_settings_clear(struct iot_settings *settings)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        value_clear(&settings->v[id]);
}

void iot_config_free(struct iot_config *config)
{
    if (!config)
        return;
    for (int i = 0; i < config->nfiles; i++) {
        struct iot_file_block *file = &config->files[i];
        for (int j = 0; j < file->ndatasets; j++)
            iot_settings_clear(&file->datasets[j].s);
        free(file->datasets);
        iot_settings_clear(&file->s);
    }
    free(config->files);
    free(config->file_patterns);
    free(config->first_dataset);
    free(config->dataset_patterns);
    free(config->file_rule_used);
    iot_settings_clear(&config->top);
    free(config);
}

static void map_put(struct iot_value *into, const char *name, const char *value)
{
    for (int i = 0; i < into->nmap; i++)
        if (strcmp(into->names[i], name) == 0) {
            free(into->values[i]);
            into->values[i] = strdup(value);
            return;
        }
    into->names = realloc(into->names, (size_t)(into->nmap + 1) * sizeof *into->names);
    into->values = realloc(into->values, (size_t)(into->nmap + 1) * sizeof *into->values);
    into->names[into->nmap] = strdup(name);
    into->values[into->nmap++] = strdup(value);
}

static void settings_merge(struct iot_settings *into, const struct iot_settings *from,
                           unsigned block_mask);

/* A copy of a record-list's entries (each entry's fields copied as settings are merged). */
static void records_copy(struct iot_value *into, const struct iot_value *from)
{
    into->records = calloc((size_t)from->nrecords, sizeof *into->records);
    into->nrecords = into->records ? from->nrecords : 0;
    for (int i = 0; i < into->nrecords; i++)
        settings_merge(&into->records[i], &from->records[i], (1u << IOT_NBLOCKS) - 1);
}

static void value_merge(struct iot_value *into, const struct iot_value *from)
{
    if (from->nmap || (into->set && into->nmap)) {
        for (int i = 0; i < from->nmap; i++)
            map_put(into, from->names[i], from->values[i]);
        into->set = 1;
        return;
    }
    value_clear(into);
    *into = *from;
    into->s = from->s ? strdup(from->s) : NULL;
    into->list = NULL;
    if (from->nlist) {
        into->list = malloc((size_t)from->nlist * sizeof *into->list);
        memcpy(into->list, from->list, (size_t)from->nlist * sizeof *into->list);
    }
    into->names = into->values = NULL;
    into->nmap = 0;
    into->records = NULL;
    into->nrecords = 0;
    if (from->nrecords)
        records_copy(into, from);
}

/* Merge the block keys of `from` (blocks in block_mask) into `into`; later wins per key. */
static void settings_merge(struct iot_settings *into, const struct iot_settings *from,
                           unsigned block_mask)
{
    for (int id = 0; id < IOT_NKEYS; id++) {
        const struct iot_key *key = &IOT_KEYS[id];
        if (key->block < 0 || !(block_mask & (1u << key->block)) || !from->v[id].set)
            continue;
        value_merge(&into->v[id], &from->v[id]);
        if (key->exclusive_with >= 0)
            value_clear(&into->v[key->exclusive_with]);
    }
}

/* Appends ",label" (or "label" first), cut at len - 1 characters as snprintf would; by hand:
 * every dataset created resolves its labels, and snprintf costs more than the rest. */
static void add_label(char *matched, size_t len, const char *label)
{
    size_t n = strlen(matched);
    if (n + 1 >= len)
        return;
    char *end = matched + n;
    size_t room = len - n - 1;
    if (n) {
        *end++ = ',';
        room--;
    }
    size_t k = strnlen(label, room);
    memcpy(end, label, k);
    end[k] = '\0';
}

/* The (file, dataset) indices of the scoped blocks that apply, in order; *n how many. Small
 * configs use `room`, larger ones a buffer the caller frees (the result when it is not room). */
static int *applying_blocks(const struct iot_config *config, const char *file_name,
                            const char *dataset_name, int *room, int room_len, int *n)
{
    int *blocks = room, len = room_len / 2;
    for (;;) {
        *n = iotwin_rules_applying(config->nfiles, config->file_patterns, config->first_dataset,
                                   config->dataset_patterns, file_name, dataset_name, blocks,
                                   blocks + len, len);
        if (*n <= len)
            return blocks;
        if (blocks != room)
            free(blocks);
        len = *n;
        if (!(blocks = malloc(2 * (size_t)len * sizeof *blocks)))
            return *n = 0, room;
    }
}

void iot_rule_label(char *out, size_t len, int file, int dataset)
{
    if (dataset < 0)
        snprintf(out, len, "files[%d]", file);
    else
        snprintf(out, len, "files[%d].datasets[%d]", file, dataset);
}

void iot_resolve(const struct iot_config *config, const char *file_name, const char *dataset_name,
                 struct iot_settings *out, char *matched, size_t matched_len)
{
    const unsigned all = (1u << IOT_NBLOCKS) - 1;
    int room[64], n = 0;
    int *blocks = applying_blocks(config, file_name, dataset_name, room, 64, &n);
    const int *files = blocks, *datasets = blocks + (blocks == room ? 32 : n);
    char label[64];
    if (out)
        memset(out, 0, sizeof *out);
    matched[0] = '\0';
    add_label(matched, matched_len, "top");
    if (out)
        settings_merge(out, &config->top, all);
    for (int k = 0; k < n; k++) {
        const struct iot_file_block *file = &config->files[files[k]];
        if (datasets[k] < 0) {
            if (out)
                settings_merge(out, &file->s, all);
            config->file_rule_used[files[k]] = 1;
        } else if (out) {
            settings_merge(out, &file->datasets[datasets[k]].s, IOT_B_DATASET);
        }
        iot_rule_label(label, sizeof label, files[k], datasets[k]);
        add_label(matched, matched_len, label);
    }
    if (blocks != room)
        free(blocks);
}
