/* A document from YAML (or JSON) text, read with libyaml as iotwin.formats.yaml_text reads
 * it: UTF-8 only, YAML 1.2 core scalars, one document, no duplicate keys, no tags, no alias
 * inside its own anchor, nesting and nodes bounded (doc.h). */
#ifndef IOTWIN_FORMATS_DOC_YAML_H
#define IOTWIN_FORMATS_DOC_YAML_H

#include "doc.h"

/* The document in `text` into `d` (*root: a DOC_NULL node for an empty document); 0, or -1
 * with "SOURCE:LINE: FIELD: why" in err (formats/input_error.h: no "SOURCE:" when `source` is
 * NULL, no "FIELD: " when the document as a whole is refused). `floats`: plain decimal numbers
 * are floats, else strings. */
int doc_from_yaml(const char *text, size_t len, int floats, const char *source, doc *d,
                  doc_node **root, char *err, size_t errlen);
/* The same from a file; err names the file. */
int doc_from_yaml_file(const char *path, int floats, doc *d, doc_node **root, char *err,
                       size_t errlen);

#endif
