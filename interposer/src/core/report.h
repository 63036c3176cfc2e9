/* The per-file JSON report: reduced over the file's communicator at H5Fclose (collective
 * anyway), appended by its rank 0 to $IOTWIN_REPORT as one line. Schema: interposer/README.md. */
#pragma once
#include "core/records.h"

struct iot_run {
    const char *config_path;   /* NULL: no IOTWIN_CONFIG */
    const char *config_error;  /* NULL: config loaded */
    const char *report_path;   /* NULL: no IOTWIN_REPORT, nothing written */
    char async_api[256];
};

void iot_report_file(struct iot_file *file, const struct iot_run *run);

/* Appends one line with a single write (O_APPEND: lines of several processes stay whole). */
int iot_append_line(const char *path, const char *text, size_t len);
