/* The walk a reader makes of a document against a record table (workload_table.c), as
 * iotwin.formats.records.RecordChecker does it, in the same order and with the same messages:
 * unknown and missing keys, types, bounds, list lengths, strings without control characters.
 * Then the document's normal form: every default filled in, nulls dropped. */
#ifndef IOTWIN_FORMATS_RECORD_CHECK_H
#define IOTWIN_FORMATS_RECORD_CHECK_H

#include "doc.h"
#include "input_error.h"
#include "record_table.h"

/* 0, or -1 with the field refused and why in `refusal`. */
int record_check(const struct fmt_record *records, int record, const doc_node *node,
                 input_refusal *refusal);
/* The normal form of a checked `node` in `out` (NULL when out of memory): a record is a map
 * with one entry per field, in the table's order, NULL where absent; numbers are DOC_FLOAT;
 * per-axis defaults are left to the format's rules (they depend on a dataset). */
doc_node *record_normal(const struct fmt_record *records, int record, const doc_node *node,
                        doc *out);

#endif
