/* Workload capture (IOTWIN_CAPTURE=FILE): what the simulator needs to replay a file session:
 * its datasets in creation order, every write with each rank's file selection, flushes and
 * the compute gaps between calls. Gathered at H5Fclose (collective) into one JSON line per
 * session, written by rank 0 of the file's communicator. Format: interposer/README.md. */
#pragma once
#include <hdf5.h>

#include "records.h"

struct iot_capture;

/* Reads IOTWIN_CAPTURE once; capture is off (every call below a no-op) without it. */
void iot_capture_init(void);
int iot_capture_enabled(void);
double iot_capture_clock(void);   /* epoch seconds */
double iot_capture_epoch_of(double monotonic);   /* a CLOCK_MONOTONIC time in epoch seconds */

void iot_capture_open(struct iot_file *file, double start, double end);
/* A dataset created in the session (`settings`: the application's own creation list's, NULL
 * if unknown) or opened in it. */
void iot_capture_created(struct iot_file *file, struct iot_dataset *d, hid_t type, hid_t space,
                         const struct iot_creation *settings);
void iot_capture_opened(struct iot_file *file, struct iot_dataset *d, hid_t id);
/* `points`: the file selection's element count when the caller knows it, else -1. */
void iot_capture_write(struct iot_file *file, struct iot_dataset *d, hid_t file_space,
                       hssize_t points, hid_t dxpl, double start, double end);
/* A property list was changed or closed: what was read from it is stale. */
void iot_capture_plist_changed(hid_t plist);
/* Seconds spent creating or closing a dataset: not counted as compute before the next call. */
void iot_capture_metadata(struct iot_file *file, double seconds);
void iot_capture_flush(struct iot_file *file, double start, double end);
void iot_capture_unsupported(struct iot_file *file, const char *what, const char *name);
/* After the real H5Fclose: gathers (collective on the file's communicator) and writes. */
void iot_capture_close(struct iot_file *file, double start, double end);
void iot_capture_free(struct iot_capture *capture);
