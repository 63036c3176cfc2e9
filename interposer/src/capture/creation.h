/* A dataset's creation settings and shape as the workload records them (capture/record.c)
 * and the HDF5 layer reads them from creation lists (hdf5/readback.c). */
#pragma once
#include <hdf5.h>

#include "core/text.h"

/* A dataset's creation properties as HDF5 applied them. */
struct iot_creation {
    H5D_layout_t layout;
    int chunk_rank;           /* -1: not chunked */
    hsize_t chunk[H5S_MAX_RANK];
    H5D_fill_time_t fill;
    H5D_alloc_time_t alloc;
    H5D_fill_value_t fill_value;  /* user-defined, default or undefined: decides ifset's fill */
};

const char *iot_layout_name(H5D_layout_t layout);           /* "contiguous", "chunked", ... */
const char *iot_fill_value_name(H5D_fill_value_t status);  /* "user", "default", "undefined" */
/* [v0, ...] of HDF5 sizes; H5S_UNLIMITED as null when asked. */
void put_hsizes(struct buf *b, const hsize_t *v, int n, int unlimited_as_null);
