/* The workload format (sim-models/WORKLOAD.md) as its C and C++ readers check it: the keys of
 * workload-schema.yaml (record_check.c on the generated table), then the format's rules
 * (workload_rules.c), in the order and with the messages of iotwin.workloads.workload, so that
 * iosim, the replay proxy and the Python validator accept and refuse the same documents. */
#ifndef IOTWIN_FORMATS_WORKLOAD_CHECK_H
#define IOTWIN_FORMATS_WORKLOAD_CHECK_H

#include "doc.h"
#include "workload_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The normal form of a valid workload `document`, built in `out`: each record a map with one
 * entry per field of its record (workload_fields.h: WL_<RECORD>_<FIELD>), NULL where absent,
 * every default filled in, a run's ranks as [first, n, step]. 0, or -1 with
 * "FILE:LINE: PATH: why" (formats/input_error.h) when the document was read from the file
 * `file`, "PATH: why" when `file` is NULL (a workload inside another input). */
int workload_check(const doc_node *document, const char *file, doc *out, doc_node **normal,
                   char *err, size_t errlen);
/* The same for a YAML or JSON file, read into `source`; the message names the file. */
int workload_load(const char *path, doc *source, doc *out, doc_node **normal, char *err,
                  size_t errlen);

/* What a reader's check mode (`iosim --check-workload`, `replay --check`) says of a file. */
typedef enum { WL_ACCEPTED, WL_REFUSED, WL_CANNOT_RUN } wl_verdict;

/* One JSON line: {"file": ..., "verdict": "accepted" | "refused" | "cannot-run", "error": ...,
 * "normal": ...} (error: NULL when accepted; normal: NULL when refused). */
void workload_print_verdict(FILE *out, const char *file, wl_verdict verdict, const char *error,
                            const doc_node *normal);
/* The worse of two verdicts (refused, then cannot-run, then accepted). */
wl_verdict workload_worse_verdict(wl_verdict a, wl_verdict b);
/* A check mode's exit status for its worst verdict: 0 accepted, 2 refused, 3 cannot-run. */
int workload_verdict_status(wl_verdict worst);

/* A field of a normal-form record (NULL: absent). */
static inline const doc_node *wl_field(const doc_node *record, int field)
{
    return record->items[field];
}

#ifdef __cplusplus
}
#endif

#endif
