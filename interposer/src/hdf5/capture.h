/* The HDF5 layer's part of the workload capture (capture/capture.h): datasets from their
 * creation lists and dataspaces, writes from their file dataspaces and transfer lists. */
#pragma once
#include <hdf5.h>

#include "hdf5/records.h"

/* A session starts; `own`: the access properties the program opened the file with. */
void iot_h5capture_open(struct iot_file *file, const struct iot_access *own, double start,
                        double end);
/* A dataset created in the session (`settings`: the application's own creation list's, NULL
 * if unknown) or opened in it. */
void iot_h5capture_created(struct iot_file *file, struct iot_dataset *d, hid_t type, hid_t space,
                           const struct iot_creation *settings);
void iot_h5capture_opened(struct iot_file *file, struct iot_dataset *d, hid_t id);
/* `points`: the file selection's element count when the caller knows it, else -1. */
void iot_h5capture_write(struct iot_file *file, struct iot_dataset *d, hid_t file_space,
                         hssize_t points, hid_t dxpl, double start, double end);
