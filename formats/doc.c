#include "doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input_error.h"

#define CHUNK_BYTES 65536

struct doc_chunk {
    doc_chunk *next;
    size_t used, size;
    max_align_t data[];
};

void doc_init(doc *d)
{
    d->chunks = NULL;
}

void doc_free(doc *d)
{
    while (d->chunks) {
        doc_chunk *next = d->chunks->next;
        free(d->chunks);
        d->chunks = next;
    }
}

void *doc_alloc(doc *d, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    doc_chunk *c = d->chunks;
    if (!c || c->size - c->used < size) {
        size_t room = size > CHUNK_BYTES ? size : CHUNK_BYTES;
        c = calloc(1, sizeof *c + room);
        if (!c)
            return NULL;
        c->size = room;
        c->next = d->chunks;
        d->chunks = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    return p;
}

doc_node *doc_new(doc *d, doc_kind kind)
{
    doc_node *n = doc_alloc(d, sizeof *n);
    if (n) {
        n->kind = kind;
        n->size = 1;
        n->height = kind == DOC_LIST || kind == DOC_MAP;
    }
    return n;
}

char *doc_copy_text(doc *d, const char *text, size_t len)
{
    char *copy = doc_alloc(d, len + 1);
    if (copy)
        memcpy(copy, text, len);
    return copy;
}

static int one_of(const char *text, const char *const words[])
{
    for (; *words; words++)
        if (!strcmp(text, *words))
            return 1;
    return 0;
}

static const char *digits(const char *p)
{
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

/* [-+]?[0-9]+ */
static int is_int(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    return *p && !*digits(p);
}

/* YAML 1.2 core: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, .inf, .nan */
static int is_float(const char *text)
{
    static const char *const special[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                                          "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN",
                                          NULL};
    if (one_of(text, special))
        return 1;
    const char *p = text + (*text == '-' || *text == '+');
    if (*p == '.') {
        const char *end = digits(p + 1);
        if (end == p + 1)
            return 0;
        p = end;
    } else {
        const char *end = digits(p);
        if (end == p)
            return 0;
        p = *end == '.' ? digits(end + 1) : end;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '-' || *p == '+';
        const char *end = digits(p);
        if (end == p)
            return 0;
        p = end;
    }
    return !*p;
}

static void parse_int(doc_node *n)
{
    const char *p = n->text;
    int negative = *p == '-';
    p += *p == '-' || *p == '+';
    uint64_t magnitude = 0;
    n->exact = 1;
    for (; *p; p++) {
        uint64_t digit = (uint64_t)(*p - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) {
            n->exact = 0;
            return;
        }
        magnitude = magnitude * 10 + digit;
    }
    if (negative && magnitude <= (uint64_t)INT64_MAX + 1)
        n->i = magnitude == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)magnitude;
    else if (!negative && magnitude <= INT64_MAX)
        n->i = (int64_t)magnitude;
    else
        n->exact = 0;
}

static double parse_float(const char *text)
{
    const char *p = text + (*text == '-' || *text == '+');
    if (p[0] == '.' && (p[1] == 'i' || p[1] == 'I'))
        return *text == '-' ? -INFINITY : INFINITY;
    if (p[0] == '.' && (p[1] == 'n' || p[1] == 'N'))
        return NAN;
    return strtod(text, NULL);
}

doc_node *doc_scalar(doc *d, const char *text, size_t len, int plain, int floats)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", NULL};
    static const char *const falses[] = {"false", "False", "FALSE", NULL};
    doc_node *n = doc_new(d, DOC_STRING);
    if (!n || !(n->text = doc_copy_text(d, text, len)))
        return NULL;
    n->len = len;
    if (!plain || memchr(text, '\0', len))
        return n;
    if (one_of(n->text, nulls)) {
        n->kind = DOC_NULL;
    } else if (one_of(n->text, trues) || one_of(n->text, falses)) {
        n->kind = DOC_BOOL;
        n->i = one_of(n->text, trues);
    } else if (is_int(n->text)) {
        n->kind = DOC_INT;
        parse_int(n);
    } else if (floats && is_float(n->text)) {
        n->kind = DOC_FLOAT;
        n->f = parse_float(n->text);
    }
    return n;
}

doc_node *doc_int_node(doc *d, int64_t value)
{
    char text[32];
    int len = snprintf(text, sizeof text, "%lld", (long long)value);
    doc_node *n = doc_new(d, DOC_INT);
    if (n && (n->text = doc_copy_text(d, text, (size_t)len))) {
        n->len = (size_t)len;
        n->exact = 1;
        n->i = value;
    }
    return n;
}

doc_node *doc_float_node(doc *d, double value)
{
    char text[40];
    int len = snprintf(text, sizeof text, "%.17g", value);
    doc_node *n = doc_new(d, DOC_FLOAT);
    if (n && (n->text = doc_copy_text(d, text, (size_t)len))) {
        n->len = (size_t)len;
        n->f = value;
    }
    return n;
}

int doc_make_entries(doc *d, doc_node *n, size_t count)
{
    n->n = count;
    if (!count)
        return 0;
    n->items = doc_alloc(d, count * sizeof *n->items);
    if (n->kind == DOC_MAP) {
        n->keys = doc_alloc(d, count * sizeof *n->keys);
        n->key_lines = doc_alloc(d, count * sizeof *n->key_lines);
    }
    return n->items && (n->kind != DOC_MAP || (n->keys && n->key_lines)) ? 0 : -1;
}

static input_node describe_node(const input_tree *tree, const void *node)
{
    const doc_node *n = node;
    (void)tree;
    return (input_node){n->line, n->kind == DOC_LIST ? INPUT_LIST : n->kind == DOC_MAP
                                                                    ? INPUT_MAP : INPUT_SCALAR,
                        n->n};
}

static const void *node_entry(const input_tree *tree, const void *node, size_t i,
                              const char **key, size_t *key_line)
{
    const doc_node *n = node;
    (void)tree;
    if (key) {
        *key = n->keys[i];
        *key_line = n->key_lines[i];
    }
    return n->items[i];
}

size_t doc_field_line(const doc_node *root, const char *field)
{
    const input_tree tree = {NULL, describe_node, node_entry};
    return input_field_line(&tree, root, field);
}

void doc_measure(doc_node *n)
{
    n->size = 1;
    n->height = 0;
    for (size_t i = 0; i < n->n; i++) {
        if (!n->items[i])
            continue;
        n->size += n->items[i]->size;
        if (n->items[i]->height > n->height)
            n->height = n->items[i]->height;
    }
    n->height += n->kind == DOC_LIST || n->kind == DOC_MAP;
}

const doc_node *doc_get(const doc_node *map, const char *key)
{
    if (!map || map->kind != DOC_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (map->keys[i] && !strcmp(map->keys[i], key))
            return map->items[i];
    return NULL;
}

/* --- describing values ---------------------------------------------------------------------- */

/* The next code point of valid UTF-8 at *p (advanced). */
static unsigned long next_code_point(const unsigned char **p)
{
    const unsigned char *s = *p;
    unsigned long c = s[0];
    int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (extra)
        c &= 0x3Fu >> extra;
    for (int k = 1; k <= extra; k++)
        c = c << 6 | (s[k] & 0x3Fu);
    *p = s + 1 + extra;
    return c;
}

long doc_control_character(const doc_node *string)
{
    const unsigned char *p = (const unsigned char *)string->text, *end = p + string->len;
    while (p < end) {
        unsigned long c = next_code_point(&p);
        if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029
            || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069)
            || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF)
            return (long)c;
    }
    return -1;
}

size_t doc_unwritten_character(const char *text, size_t len, unsigned long *code_point)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    size_t line = 1;
    while (p < end) {
        unsigned long c = next_code_point(&p);
        if (c == '\n')
            line++;
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || (c >= 0x7F && c <= 0x9F)
            || c == 0x2028 || c == 0x2029 || c == 0xFFFE || c == 0xFFFF) {
            *code_point = c;
            return line;
        }
    }
    return 0;
}

typedef struct {
    char *out;
    size_t len, used;
} text_buf;

static void put(text_buf *b, const char *text)
{
    size_t n = strlen(text);
    if (b->used + n >= b->len)
        n = b->used + 1 < b->len ? b->len - b->used - 1 : 0;
    memcpy(b->out + b->used, text, n);
    b->used += n;
    b->out[b->used] = '\0';
}

/* json.dumps(string): ASCII only, as Python quotes it. */
static void put_json_ascii(text_buf *b, const char *text, size_t len)
{
    char piece[32];
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    put(b, "\"");
    while (p < end) {
        unsigned long c = next_code_point(&p);
        const char *named = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f" : NULL;
        if (named) {
            put(b, named);
        } else if (c >= 0x20 && c < 0x7F) {
            piece[0] = (char)c, piece[1] = '\0';
            put(b, piece);
        } else if (c < 0x10000) {
            snprintf(piece, sizeof piece, "\\u%04lx", c);
            put(b, piece);
        } else {
            c -= 0x10000;
            snprintf(piece, sizeof piece, "\\u%04lx\\u%04lx", 0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF));
            put(b, piece);
        }
    }
    put(b, "\"");
}

/* repr(float): the shortest digits that read back as x, fixed from 1e-4 to 1e16, else
 * scientific with a two-digit exponent at least. */
static void put_python_float(text_buf *b, double x)
{
    char sci[40], digits_of[24], out[64];
    if (isnan(x) || isinf(x)) {
        put(b, isnan(x) ? "nan" : x < 0 ? "-inf" : "inf");
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, x);
        if (strtod(sci, NULL) == x)
            break;
    }
    const char *s = sci + (sci[0] == '-');
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits_of[nd++] = *s;
    digits_of[nd] = '\0';
    int exponent = atoi(s + 1);
    char *o = out;
    if (sci[0] == '-')
        *o++ = '-';
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            o += sprintf(o, "0.");
            for (int k = -1; k > exponent; k--)
                *o++ = '0';
            o += sprintf(o, "%s", digits_of);
        } else {
            for (int k = 0; k <= exponent || k < (int)nd; k++) {
                if (k == exponent + 1)
                    *o++ = '.';
                *o++ = k < (int)nd ? digits_of[k] : '0';
            }
            if ((int)nd <= exponent + 1)
                o += sprintf(o, ".0");
        }
        *o = '\0';
    } else {
        o += sprintf(o, "%c", digits_of[0]);
        if (nd > 1)
            o += sprintf(o, ".%s", digits_of + 1);
        sprintf(o, "e%c%02d", exponent < 0 ? '-' : '+', abs(exponent));
    }
    put(b, out);
}

/* An integer beyond int64 as Python prints it: no '+', no leading zeros. */
static void put_big_int(text_buf *b, const char *text)
{
    if (*text == '-')
        put(b, "-");
    text += *text == '-' || *text == '+';
    while (text[0] == '0' && text[1])
        text++;
    put(b, text);
}

const char *doc_describe(const doc_node *n, char *out, size_t len)
{
    text_buf b = {out, len, 0};
    char number[32];
    out[0] = '\0';
    switch (n->kind) {
    case DOC_NULL: return "null";
    case DOC_BOOL: return n->i ? "true" : "false";
    case DOC_LIST: return "a list";
    case DOC_MAP: return "a mapping";
    case DOC_INT:
        if (!n->exact) {
            put_big_int(&b, n->text);
            break;
        }
        snprintf(number, sizeof number, "%lld", (long long)n->i);
        put(&b, number);
        break;
    case DOC_FLOAT: put_python_float(&b, n->f); break;
    case DOC_STRING: put_json_ascii(&b, n->text, n->len); break;
    }
    return out;
}

const char *doc_key_text(const char *key, char *out, size_t len)
{
    int plain = *key != '\0';
    for (const char *p = key; *p && plain; p++)
        plain = *p >= 0x20 && *p < 0x7F;
    if (plain)
        return key;
    text_buf b = {out, len, 0};
    out[0] = '\0';
    put_json_ascii(&b, key, strlen(key));
    return out;
}

/* --- JSON ---------------------------------------------------------------------------------- */

void doc_write_json_string(FILE *out, const char *text, size_t len)
{
    fputc('"', out);
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)text[k];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void doc_write_json(FILE *out, const doc_node *n)
{
    const char *sep = "";
    switch (n->kind) {
    case DOC_NULL: fputs("null", out); return;
    case DOC_BOOL: fputs(n->i ? "true" : "false", out); return;
    case DOC_INT: fprintf(out, "%lld", (long long)n->i); return;
    case DOC_FLOAT: fprintf(out, "%.17g", n->f); return;
    case DOC_STRING: doc_write_json_string(out, n->text, n->len); return;
    case DOC_LIST:
        fputc('[', out);
        for (size_t i = 0; i < n->n; i++, sep = ", ") {
            fputs(sep, out);
            doc_write_json(out, n->items[i]);
        }
        fputc(']', out);
        return;
    case DOC_MAP:
        fputc('{', out);
        for (size_t i = 0; i < n->n; i++) {
            if (!n->items[i])
                continue;
            fputs(sep, out);
            sep = ", ";
            doc_write_json_string(out, n->keys[i], strlen(n->keys[i]));
            fputs(": ", out);
            doc_write_json(out, n->items[i]);
        }
        fputc('}', out);
        return;
    }
}
