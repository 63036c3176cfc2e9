/* What capture.c records on each rank and capture_gather.c gathers at H5Fclose. */
#pragma once
#include <hdf5.h>

#include "capture/creation.h"
#include "core/json.h"
#include "core/records.h"

#define MAXR H5S_MAX_RANK
#define DESC(rank) (4 * (rank))   /* one hyperslab: start, stride, count, block */

struct cap_dataset {
    char *name;
    long long element_bytes;
    int rank, created;
    hsize_t dims[MAXR], max_dims[MAXR];
    struct iot_creation creation;   /* the application's own creation list */
    long long writes[2];         /* this rank's writes so far: independent, collective */
};

/* One call of this rank. A write's file selection is in the pool at `sel`: the number of
 * hyperslabs, then each one's start, stride, count, block (boxes: stride 1, block 1). */
struct cap_call {
    int dataset;                 /* -1: a flush */
    int collective;
    long long ordinal;           /* among this rank's writes of the dataset of the same transfer
                                  * (independent or collective), or among its flushes */
    double start, end, gap;
    size_t sel;
};

/* The object formats an HDF5 file was created with, as the HDF5 layer names them (the
 * workload's `hdf5_create`); libver_low NULL: HDF5's defaults, or not an HDF5 file. */
struct cap_hdf5_create {
    const char *libver_low;            /* the access list's earliest format: "earliest", "v18"... */
    const char *link_creation_order;   /* "untracked", "tracked" or "indexed" */
    const char *attr_creation_order;
    int track_times;
};

struct iot_capture {
    double t_open, t_open_done, last_end;
    double metadata_s;           /* in dataset creates / closes since the last call: not compute */
    struct cap_dataset *datasets;
    int ndatasets;
    size_t dataset_cap;
    struct cap_call *calls;
    int ncalls;
    size_t call_cap;
    long long *pool;
    size_t npool, pool_cap;
    struct iot_list unsupported;
    struct iot_list attributes;  /* the record's entries, JSON text (capture/attributes.c) */
    long long flushes;
    int coll_metadata_write, all_coll_metadata_ops;  /* an HDF5 file's own access list */
    struct cap_hdf5_create hdf5_create;              /* an HDF5 file's object formats */
    const char *failed;          /* why the capture of this session failed, or NULL */
};

/* Gathers one session over the file's communicator and writes its line (rank 0). */
void iot_capture_gather(struct iot_file *file, struct iot_capture *c, double close_start,
                        double close_end, const char *path);
