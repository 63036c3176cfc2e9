/* HDF5's calls as the capture records them: a dataset's shape and creation settings, a
 * write's file selection (a box when it fills its bounding box, else HDF5's own description:
 * a regular hyperslab, its block list, or points) and the transfer mode the application
 * asked for. */
#define _GNU_SOURCE
#include "hdf5/capture.h"

#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/types.h"
#include "hdf5/readback.h"
#include "hdf5/transfer.h"

static const char *creation_order_name(unsigned flags)
{
    if (flags & H5P_CRT_ORDER_INDEXED)
        return "indexed";
    return flags & H5P_CRT_ORDER_TRACKED ? "tracked" : "untracked";
}

/* The workload's names of the formats (its schema's), NULL for one it has no name for. */
static const char *libver_name(H5F_libver_t low)
{
    static const char *const names[] = {"earliest", "v18", "v110", "v112", "v114"};
    return low >= 0 && (size_t)low < sizeof names / sizeof *names ? names[low] : NULL;
}

/* The object formats the file was made with: the program's access list's earliest, the
 * file's creation list's creation order and object times (a copy of the creation list costs
 * no collective, unlike one of the access list). Only where one is not HDF5's default. */
static void capture_formats(struct iot_file *file, const struct iot_access *own)
{
    unsigned links = 0, attrs = 0;
    hbool_t times = 1;
    hid_t fcpl = H5Fget_create_plist(iot_h5(file)->id);
    if (fcpl >= 0) {
        H5Pget_link_creation_order(fcpl, &links);
        H5Pget_attr_creation_order(fcpl, &attrs);
        H5Pget_obj_track_times(fcpl, &times);
        iot_list_close(fcpl);
    }
    struct cap_hdf5_create formats = {libver_name(own->libver_low), creation_order_name(links),
                                      creation_order_name(attrs), times != 0};
    if (formats.libver_low && (own->libver_low != H5F_LIBVER_EARLIEST || links || attrs || !times))
        iot_capture_set_hdf5_create(file, &formats);
}

void iot_h5capture_open(struct iot_file *file, const struct iot_access *own, double start,
                        double end)
{
    if (!iot_capture_enabled())
        return;
    iot_capture_start(file, start, end);
    iot_capture_set_hdf5_access(file, own->coll_write != 0, own->coll_ops != 0);
    capture_formats(file, own);
}

/* --- datasets -------------------------------------------------------------------------------- */

static void read_shape(struct cap_dataset *cd, hid_t type, hid_t space)
{
    hsize_t dims[MAXR], max_dims[MAXR];
    int rank = H5Sget_simple_extent_dims(space, dims, max_dims);
    iot_capture_set_shape(cd, (long long)H5Tget_size(type), rank, dims, max_dims);
}

/* d's capture record, new (NULL when capture is off or failed, or d is known already). */
static struct cap_dataset *add_dataset(struct iot_file *file, struct iot_dataset *d)
{
    struct cap_dataset *cd = NULL;
    if (d->capture_index || !(d->capture_index = iot_capture_new_dataset(file, d->part.name, &cd)))
        return NULL;
    return cd;
}

void iot_h5capture_created(struct iot_file *file, struct iot_dataset *d, hid_t type,
                           hid_t space, const struct iot_creation *settings)
{
    struct cap_dataset *cd = add_dataset(file, d);
    if (!cd)
        return;
    cd->created = 1;
    read_shape(cd, type, space);
    if (settings)
        cd->creation = *settings;
}

void iot_h5capture_opened(struct iot_file *file, struct iot_dataset *d, hid_t id)
{
    struct cap_dataset *cd = add_dataset(file, d);
    if (!cd)
        return;
    hid_t type = H5Dget_type(id), space = H5Dget_space(id), dcpl = H5Dget_create_plist(id);
    if (type >= 0 && space >= 0)
        read_shape(cd, type, space);
    if (dcpl >= 0)
        iot_read_creation(dcpl, &cd->creation);
    H5Tclose(type);
    H5Sclose(space);
    iot_list_close(dcpl);
    iot_capture_unsupported(file, "written but not created in this session (its layout is the "
                            "existing file's):", d->part.name);
}

/* --- selections ------------------------------------------------------------------------------- */

static int push_regular(struct iot_capture *c, int rank, hid_t space)
{
    hsize_t start[MAXR], stride[MAXR], count[MAXR], block[MAXR];
    if (H5Sget_regular_hyperslab(space, start, stride, count, block) < 0)
        return -1;
    for (int a = 0; a < rank; a++)
        if (count[a] == 1 || stride[a] == block[a]) {   /* contiguous along this axis */
            count[a] *= block[a];
            stride[a] = block[a] = 1;
        }
    return iot_capture_push_hyperslab(c, rank, start, stride, count, block) < 0 ? -1 : 1;
}

static int push_blocks(struct iot_capture *c, int rank, hid_t space)
{
    hssize_t n = H5Sget_select_hyper_nblocks(space);
    hsize_t *corners = n > 0 ? malloc((size_t)n * 2 * (size_t)rank * sizeof *corners) : NULL;
    if (n <= 0 || !corners || H5Sget_select_hyper_blocklist(space, 0, (hsize_t)n, corners) < 0) {
        free(corners);
        return n == 0 ? 0 : -1;
    }
    hsize_t count[MAXR];
    for (hssize_t b = 0; b < n; b++) {
        const hsize_t *lo = corners + 2 * rank * b, *hi = lo + rank;
        for (int a = 0; a < rank; a++)
            count[a] = hi[a] - lo[a] + 1;
        if (iot_capture_push_box(c, rank, lo, count) < 0)
            n = -1;
    }
    free(corners);
    return (int)(n < 0 ? -1 : n);
}

/* Points, consecutive ones along the last axis merged into boxes. */
static int push_points(struct iot_capture *c, int rank, hid_t space)
{
    hssize_t n = H5Sget_select_elem_npoints(space);
    hsize_t *points = n > 0 ? malloc((size_t)n * (size_t)rank * sizeof *points) : NULL;
    if (n <= 0 || !points || H5Sget_select_elem_pointlist(space, 0, (hsize_t)n, points) < 0) {
        free(points);
        return n == 0 ? 0 : -1;
    }
    int boxes = 0;
    hsize_t count[MAXR];
    for (hssize_t i = 0; i < n && boxes >= 0;) {
        const hsize_t *first = points + rank * i;
        hssize_t j = i + 1;
        while (j < n && memcmp(points + rank * j, first, (size_t)(rank - 1) * sizeof *first) == 0
               && points[rank * j + rank - 1] == first[rank - 1] + (hsize_t)(j - i))
            j++;
        for (int a = 0; a < rank; a++)
            count[a] = a == rank - 1 ? (hsize_t)(j - i) : 1;
        boxes = iot_capture_push_box(c, rank, first, count) < 0 ? -1 : boxes + 1;
        i = j;
    }
    free(points);
    return boxes;
}

struct file_selection {
    hid_t space;
    hssize_t points;   /* -1: not known */
};

/* This rank's file selection; the number of hyperslabs, -1 on failure. A selection that
 * fills its bounding box (most do) costs one HDF5 call. */
static int push_selection(struct iot_capture *c, const struct cap_dataset *cd, const void *arg)
{
    static const hsize_t zero[MAXR];
    const struct file_selection *sel = arg;
    hid_t space = sel->space;
    hsize_t lo[MAXR], hi[MAXR];
    if (space == H5S_ALL)
        return iot_capture_push_box(c, cd->rank, zero, cd->dims) < 0 ? -1 : 1;
    if (sel->points == 0)
        return 0;
    if (sel->points > 0 && cd->rank > 0 && H5Sget_select_bounds(space, lo, hi) >= 0) {
        hssize_t volume = 1;
        for (int a = 0; a < cd->rank; a++)
            volume *= (hssize_t)(hi[a] = hi[a] - lo[a] + 1);
        if (volume == sel->points)
            return iot_capture_push_box(c, cd->rank, lo, hi) < 0 ? -1 : 1;
    }
    switch (H5Sget_select_type(space)) {
    case H5S_SEL_NONE: return 0;
    case H5S_SEL_ALL: return iot_capture_push_box(c, cd->rank, zero, cd->dims) < 0 ? -1 : 1;
    case H5S_SEL_POINTS: return cd->rank > 0 ? push_points(c, cd->rank, space) : -1;
    case H5S_SEL_HYPERSLABS:
        return H5Sis_regular_hyperslab(space) > 0 ? push_regular(c, cd->rank, space)
                                                  : push_blocks(c, cd->rank, space);
    default: return -1;
    }
}

static int is_collective(const struct iot_file *file, hid_t dxpl)
{
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    return file->collective && dxpl != H5P_DEFAULT && iot_transfer_mode_of(dxpl, &mode) >= 0
           && mode == H5FD_MPIO_COLLECTIVE;
}

void iot_h5capture_write(struct iot_file *file, struct iot_dataset *d, hid_t file_space,
                         hssize_t points, hid_t dxpl, double start, double end)
{
    struct file_selection sel = {file_space, points};
    if (file->capture && d->capture_index)
        iot_capture_write_to(file, d->capture_index, is_collective(file, dxpl), push_selection,
                             &sel, start, end);
}
