#include "record_check.h"

#include <stdarg.h>
#include <string.h>

#include "input_error.h"

#define PATH_LEN 512

typedef struct {
    const struct fmt_record *records;
    input_refusal *refusal;
} walk;

#define fail(w, path, ...) input_refuse((w)->refusal, path, __VA_ARGS__)

static int expected(walk *w, const char *path, const char *phrase, const doc_node *value)
{
    char shown[768];
    return fail(w, path, "expected %s, got %s", phrase, doc_describe(value, shown, sizeof shown));
}

/* A key path, cut at PATH_LEN. */
static void path_of(char *out, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(out, PATH_LEN, fmt, args);
    va_end(args);
}

static void join(char *out, const char *path, const char *name)
{
    path_of(out, *path ? "%s.%s" : "%s%s", path, name);
}

static void index_path(char *out, const char *path, size_t i)
{
    path_of(out, "%s[%zu]", path, i);
}

static int record(walk *w, int r, const doc_node *node, const char *path);

static int text(walk *w, const doc_node *node, const char *path)
{
    long c = doc_control_character(node);
    return c < 0 ? 0 : fail(w, path, "holds the control character U+%04lX", (unsigned long)c);
}

static int integer_ok(const struct fmt_field *f, const doc_node *v)
{
    return v->kind == DOC_INT && v->exact && v->i >= f->min && v->i <= f->max;
}

static int integer(walk *w, const struct fmt_field *f, const doc_node *v, const char *path)
{
    return integer_ok(f, v) ? 0 : expected(w, path, f->item_expected, v);
}

/* One entry of a list field. */
static int item(walk *w, const struct fmt_field *f, const doc_node *v, const char *path)
{
    char sub[PATH_LEN];
    switch (f->type) {
    case FMT_LIST: return record(w, f->record, v, path);
    case FMT_STRING_LIST:
        return v->kind == DOC_STRING ? text(w, v, path) : expected(w, path, "a string", v);
    case FMT_INT_LISTS:
        if (v->kind != DOC_LIST || !v->n)
            return expected(w, path, "a non-empty list of integers", v);
        for (size_t i = 0; i < v->n; i++) {
            index_path(sub, path, i);
            if (integer(w, f, v->items[i], sub))
                return -1;
        }
        return 0;
    default: return integer(w, f, v, path);
    }
}

static int number_ok(const struct fmt_field *f, const doc_node *v)
{
    double x = v->kind == DOC_FLOAT ? v->f : (double)v->i;
    if (v->kind == DOC_INT && !v->exact)
        return 0;
    return (v->kind == DOC_FLOAT || v->kind == DOC_INT) && x >= f->fmin && x <= f->fmax;
}

static int enum_ok(const struct fmt_field *f, const doc_node *v)
{
    if (v->kind != DOC_STRING || memchr(v->text, '\0', v->len))
        return 0;
    for (const char *const *value = f->values; *value; value++)
        if (!strcmp(*value, v->text))
            return 1;
    return 0;
}

static int value(walk *w, const struct fmt_field *f, const doc_node *v, const char *path)
{
    char sub[PATH_LEN];
    switch (f->type) {
    case FMT_INT: return integer_ok(f, v) ? 0 : expected(w, path, f->expected, v);
    case FMT_NUMBER: return number_ok(f, v) ? 0 : expected(w, path, f->expected, v);
    case FMT_BOOL: return v->kind == DOC_BOOL ? 0 : expected(w, path, f->expected, v);
    case FMT_ENUM: return enum_ok(f, v) ? 0 : expected(w, path, f->expected, v);
    case FMT_STRING:
        return v->kind == DOC_STRING ? text(w, v, path) : expected(w, path, f->expected, v);
    case FMT_RECORD: return record(w, f->record, v, path);
    default: break;
    }
    if (v->kind != DOC_LIST || (long)v->n < f->min_items
        || (f->max_items >= 0 && (long)v->n > f->max_items))
        return expected(w, path, f->expected, v);
    for (size_t i = 0; i < v->n; i++) {
        index_path(sub, path, i);
        if (item(w, f, v->items[i], sub))
            return -1;
    }
    return 0;
}

static int record(walk *w, int r, const doc_node *node, const char *path)
{
    const struct fmt_record *rec = &w->records[r];
    char sub[PATH_LEN];
    if (node->kind != DOC_MAP)
        return expected(w, path, "a mapping", node);
    for (size_t k = 0; k < node->n; k++) {
        int known = 0;
        for (int i = 0; i < rec->nfields && !known; i++)
            known = !strcmp(rec->fields[i].name, node->keys[k]);
        if (!known) {
            char names[1024] = "";
            for (int i = 0; i < rec->nfields; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         i ? ", " : "", rec->fields[i].name);
            char shown[PATH_LEN];
            join(sub, path, doc_key_text(node->keys[k], shown, sizeof shown));
            return fail(w, sub, "unknown key (expected one of %s)", names);
        }
    }
    for (int i = 0; i < rec->nfields; i++) {
        const struct fmt_field *f = &rec->fields[i];
        const doc_node *v = doc_get(node, f->name);
        join(sub, path, f->name);
        if (!v) {
            if (f->required)
                return fail(w, sub, "missing");
            continue;
        }
        if (v->kind == DOC_NULL && f->nullable)
            continue;
        if (value(w, f, v, sub))
            return -1;
    }
    return 0;
}

int record_check(const struct fmt_record *records, int r, const doc_node *node,
                 input_refusal *refusal)
{
    walk w = {records, refusal};
    return record(&w, r, node, "");
}

/* --- the normal form -------------------------------------------------------------------------- */

static doc_node *copy(const doc_node *v, doc *out)
{
    doc_node *n = doc_new(out, v->kind);
    if (!n)
        return NULL;
    *n = *v;
    if (v->kind != DOC_LIST)
        return n;
    if (doc_make_entries(out, n, v->n))
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (!(n->items[i] = copy(v->items[i], out)))
            return NULL;
    return n;
}

static doc_node *default_value(const struct fmt_field *f, doc *out)
{
    switch (f->type) {
    case FMT_NUMBER: return doc_float_node(out, f->default_number);
    case FMT_BOOL: {
        doc_node *n = doc_new(out, DOC_BOOL);
        if (n)
            n->i = f->default_int;
        return n;
    }
    case FMT_ENUM:
    case FMT_STRING: return doc_scalar(out, f->default_text, strlen(f->default_text), 0, 0);
    default: return doc_int_node(out, f->default_int);
    }
}

static doc_node *normal_value(const struct fmt_record *records, const struct fmt_field *f,
                              const doc_node *v, doc *out)
{
    if (f->type == FMT_RECORD)
        return record_normal(records, f->record, v, out);
    if (f->type == FMT_NUMBER)
        return doc_float_node(out, v->kind == DOC_FLOAT ? v->f : (double)v->i);
    if (f->type != FMT_LIST)
        return copy(v, out);
    doc_node *n = doc_new(out, DOC_LIST);
    if (!n || doc_make_entries(out, n, v->n))
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (!(n->items[i] = record_normal(records, f->record, v->items[i], out)))
            return NULL;
    return n;
}

doc_node *record_normal(const struct fmt_record *records, int r, const doc_node *node, doc *out)
{
    const struct fmt_record *rec = &records[r];
    doc_node *n = doc_new(out, DOC_MAP);
    if (!n || doc_make_entries(out, n, (size_t)rec->nfields))
        return NULL;
    for (int i = 0; i < rec->nfields; i++) {
        const struct fmt_field *f = &rec->fields[i];
        const doc_node *v = doc_get(node, f->name);
        n->keys[i] = f->name;
        if (v && v->kind != DOC_NULL)
            n->items[i] = normal_value(records, f, v, out);
        else if (f->has_default && !f->per_axis)
            n->items[i] = default_value(f, out);
        else
            continue;
        if (!n->items[i])
            return NULL;
    }
    return n;
}
