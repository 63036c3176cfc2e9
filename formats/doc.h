/* A parsed document: the YAML or JSON text of a workload as its C and C++ readers walk it.
 *
 * Scalars are resolved as YAML 1.2's core schema resolves plain ones, maps keep their keys'
 * order, and the builders (doc_yaml.c, iosim's doc_json.cpp) bound the nesting and the nodes,
 * aliases counted expanded: the same rules as the Python reader (iotwin.formats.yaml_text). */
#ifndef IOTWIN_FORMATS_DOC_H
#define IOTWIN_FORMATS_DOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* iotwin.formats.yaml_text.MAX_DEPTH and MAX_NODES */
#define DOC_MAX_DEPTH 32
#define DOC_MAX_NODES 4194304u

typedef enum { DOC_NULL, DOC_BOOL, DOC_INT, DOC_FLOAT, DOC_STRING, DOC_LIST, DOC_MAP } doc_kind;

typedef struct doc_node doc_node;
struct doc_node {
    doc_kind kind;
    int exact;          /* DOC_INT: the value fits in `i` (else it is beyond every bound) */
    int64_t i;          /* DOC_INT, DOC_BOOL */
    double f;           /* DOC_FLOAT */
    const char *text;   /* scalars: as written (DOC_STRING: the string) */
    size_t len;         /* its bytes: a string may hold a NUL, refused as a control character */
    size_t n;           /* DOC_LIST, DOC_MAP: entries */
    const char **keys;  /* DOC_MAP: each entry's key */
    size_t *key_lines;  /* DOC_MAP: each key's line in the text (0: not from a text) */
    size_t line;        /* the line it starts on in the text, from 1 (0: not from a text) */
    doc_node **items;   /* a normal-form record's absent fields are NULL */
    size_t size;        /* nodes in it, itself included, aliases expanded */
    int height;         /* lists and maps nested in it, itself included */
};

typedef struct doc_chunk doc_chunk;

/* An arena: every node and text of a document, freed at once. */
typedef struct {
    doc_chunk *chunks;
} doc;

void doc_init(doc *d);
void doc_free(doc *d);
/* Zeroed memory, or NULL when out of memory. */
void *doc_alloc(doc *d, size_t size);
doc_node *doc_new(doc *d, doc_kind kind);
char *doc_copy_text(doc *d, const char *text, size_t len);
/* A scalar: a plain one resolved as YAML 1.2's core schema (floats only if `floats`), a
 * quoted one a string. */
doc_node *doc_scalar(doc *d, const char *text, size_t len, int plain, int floats);
doc_node *doc_int_node(doc *d, int64_t value);
doc_node *doc_float_node(doc *d, double value);
/* Room for `count` entries (and keys, for a map); 0, or -1 when out of memory. */
int doc_make_entries(doc *d, doc_node *n, size_t count);
/* Sets size and height from the entries. */
void doc_measure(doc_node *n);

/* The line of the key path `field` (`files[0].ranks`) in the text `root` was read from, found
 * as formats/input_error.h finds it; 0 when the document has no lines. */
size_t doc_field_line(const doc_node *root, const char *field);

/* The value of `key` in a map (NULL: absent). */
const doc_node *doc_get(const doc_node *map, const char *key);
/* A value as error messages quote it: iotwin.formats.records.describe. */
const char *doc_describe(const doc_node *n, char *out, size_t len);
/* A mapping key as a key path shows it: itself if it is printable ASCII, else quoted as
 * iotwin.formats.records.key_text quotes it (so that a key cannot break a message's line). */
const char *doc_key_text(const char *key, char *out, size_t len);
/* The first code point of a string that no format allows (a C0 or C1 control, DEL, a line or
 * paragraph separator, a bidirectional override or isolate, a surrogate, U+FFFE, U+FFFF: the
 * set of iotwin.formats.records.control_character), or -1 when there is none. */
long doc_control_character(const doc_node *string);
/* The first character of UTF-8 `text` written as itself that YAML does not print (a control
 * character but tab, line feed and carriage return, DEL, U+FFFE, U+FFFF) or reads as a line
 * break where JSON reads a character (U+0085, U+2028, U+2029): its line (from 1) and code
 * point, or 0. iotwin.formats.yaml_text refuses the same. */
size_t doc_unwritten_character(const char *text, size_t len, unsigned long *code_point);
/* The tree as JSON (a normal form's absent fields left out). */
void doc_write_json(FILE *out, const doc_node *n);
/* A string as JSON. */
void doc_write_json_string(FILE *out, const char *text, size_t len);

#ifdef __cplusplus
}
#endif

#endif
