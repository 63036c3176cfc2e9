/* What the MPI-IO layer records of a file for its capture (mpiio/capture.c, regions.c). */
#pragma once
#include "mpiio/files.h"
#include "mpiio/view.h"

struct iot_mpiio_op {
    int view;                  /* -1: a sync */
    int collective;
    int ordered;               /* a write in rank order through the shared file pointer: `from`
                                * is rank 0's start; each rank's is found at close */
    long long from, to;        /* bytes of the view's data stream */
    double start, end;         /* epoch seconds */
};

struct iot_mpiio_file {
    struct iot_view *views;    /* [0]: the default view */
    int nviews;
    int current[2];            /* the view of each handle: file->fh's, file->fh_alone's */
    size_t view_cap;
    struct iot_mpiio_op *ops;
    int nops;
    size_t op_cap;
    const char *failed;        /* why this rank's capture of the file failed, or NULL */
};

/* A file's regions (mpiio/capture.h), the same on every rank. */
struct iot_region {
    long long offset, bytes;   /* in the file */
    int view;                  /* a subarray view of the region; -1: a byte region */
    long long elem, tiles;     /* subarray: element bytes, tiles written */
    int index;                 /* its dataset in the capture (1-based) */
};

struct iot_regions {
    struct iot_region *r;      /* in offset order */
    int n;
    int *subarray_of;          /* per view: its subarray region, or -1 (its writes are bytes) */
    int nviews;
};

/* Collective on comm (MPI_COMM_NULL: this process alone): the regions every rank agrees on;
 * NULL as *why on success, else why there are none (on every rank alike). */
void iot_regions_agree(struct iot_regions *out, MPI_Comm comm, const struct iot_mpiio_file *m,
                       const char **why);
void iot_regions_clear(struct iot_regions *regions);
/* The byte region holding file offset `offset`, or -1. */
int iot_region_at(const struct iot_regions *regions, long long offset);
