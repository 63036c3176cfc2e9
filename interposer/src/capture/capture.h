/* Workload capture (IOTWIN_CAPTURE=FILE), whatever layer the file belongs to: what the
 * simulator needs to replay a file session: its datasets (HDF5's, or an MPI-IO file's regions)
 * in creation order, every write with each rank's selection (hyperslabs in the dataset's
 * element coordinates), flushes and the compute gaps between calls. Gathered at the file's
 * close (collective) into one JSON line per session, written by rank 0 of the file's
 * communicator. Format: interposer/README.md. The layers turn their calls into these. */
#pragma once
#include <hdf5.h>

#include "core/records.h"

struct iot_capture;
struct cap_hdf5_create;
struct cap_dataset;

/* Reads IOTWIN_CAPTURE once; capture is off (every call below a no-op) without it. */
void iot_capture_init(void);
int iot_capture_enabled(void);
/* No config, no report, no capture: nothing to apply to the program's files and nothing to
 * record of them (as a production job runs without a config to apply). The layers then make no
 * record and pass the files' calls straight on. */
int iot_nothing_to_do(void);
double iot_capture_clock(void);   /* epoch seconds */
double iot_capture_epoch_of(double monotonic);   /* a CLOCK_MONOTONIC time in epoch seconds */

/* A session starts (its record names the file's driver: core/records.h). */
void iot_capture_start(struct iot_file *file, double start, double end);
/* What the program set on an HDF5 file's access list that changes how HDF5 writes it: its
 * collective metadata writes and reads. */
void iot_capture_set_hdf5_access(struct iot_file *file, int coll_metadata_write,
                                 int all_coll_metadata_ops);
/* The object formats of an HDF5 file, where one is not HDF5's default (capture/types.h). */
void iot_capture_set_hdf5_create(struct iot_file *file, const struct cap_hdf5_create *formats);
/* A new dataset of the session named `name`: its index + 1 (0 when capture is off or
 * failed), its record in *cd. */
int iot_capture_new_dataset(struct iot_file *file, const char *name, struct cap_dataset **cd);
/* The fields of a dataset the layers fill in (capture/types.h has the rest). */
void iot_capture_set_shape(struct cap_dataset *cd, long long element_bytes, int rank,
                           const hsize_t *dims, const hsize_t *max_dims);
/* One write of dataset `index` (as iot_capture_new_dataset returned it) whose selection
 * `push` appends with iot_capture_push_box (it returns the number of boxes, or -1 if the
 * selection cannot be read). */
typedef int (*iot_selection_push)(struct iot_capture *c, const struct cap_dataset *cd,
                                  const void *arg);
void iot_capture_write_to(struct iot_file *file, int index, int collective,
                          iot_selection_push push, const void *arg, double start, double end);
/* One box of a write's selection: start and extents along each of `rank` axes; -1 when out
 * of memory. Strided: `stride` and `block` (NULL: 1). */
int iot_capture_push_box(struct iot_capture *c, int rank, const hsize_t *start,
                         const hsize_t *count);
int iot_capture_push_hyperslab(struct iot_capture *c, int rank, const hsize_t *start,
                               const hsize_t *stride, const hsize_t *count,
                               const hsize_t *block);
/* An attribute written on `object` (the root group "/" or a dataset the session created; any
 * other object's is listed unsupported), after the datasets created so far: an attribute of
 * its own (H5Acreate*), or a dimension-scale call of HDF5's high-level library, which writes
 * attributes of its own (capture/attributes.c). */
struct cap_attribute {
    const char *name;
    const char *element_class;   /* the workload's: "integer", "float", "string", "opaque" */
    long long element_bytes;
    int rank;                    /* 0: a scalar */
    const hsize_t *dims;
};
void iot_capture_attribute(struct iot_file *file, const char *object,
                           const struct cap_attribute *a);
void iot_capture_set_scale(struct iot_file *file, const char *object, const char *scale_name);
void iot_capture_attach_scale(struct iot_file *file, const char *object, const char *scale,
                              unsigned axis);
/* Seconds spent creating or closing a dataset or an attribute: not counted as compute before
 * the next call. */
void iot_capture_metadata(struct iot_file *file, double seconds);
void iot_capture_flush(struct iot_file *file, double start, double end);
void iot_capture_unsupported(struct iot_file *file, const char *what, const char *name);
/* After the real close: gathers (collective on the file's communicator) and writes. */
void iot_capture_close(struct iot_file *file, double start, double end);
void iot_capture_free(struct iot_capture *capture);
