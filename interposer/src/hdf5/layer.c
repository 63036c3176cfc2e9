/* The HDF5 layer in the layers' table (core/layer.h): its file state, its datasets as the
 * file's parts, their report lines, its clean-up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/capture.h"
#include "core/layer.h"
#include "core/report.h"
#include "hdf5/apply.h"
#include "hdf5/hooks.h"
#include "hdf5/readback.h"
#include "hdf5/records.h"
#include "hdf5/transfer.h"

static char async_api[256];

void iot_hdf5_describe_async_api(void)
{
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    if (dlsym(RTLD_DEFAULT, "H5Fcreate_async"))
        snprintf(async_api, sizeof async_api, "present in the HDF5 %u.%u.%u loaded at run time "
                 "but not hooked: this interposer was built against HDF5 %d.%d.%d headers",
                 major, minor, release, H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
    else
        snprintf(async_api, sizeof async_api, "absent: HDF5 %u.%u.%u has no async API "
                 "(H5Fcreate_async and the other *_async calls exist from 1.13 on)",
                 major, minor, release);
}

static void *file_new(struct iot_file *file)
{
    struct iot_hdf5_file *state = calloc(1, sizeof *state);
    (void)file;
    if (state)
        state->id = -1;
    return state;
}

static void file_free(struct iot_file *file)
{
    iot_capture_free(file->capture);
    free(file->state);
}

static struct iot_part *part_new(struct iot_file *file, const char *name)
{
    return &iot_dataset_new(file, -1, name)->part;
}

static void part_free(struct iot_part *part)
{
    struct iot_dataset *dataset = (struct iot_dataset *)part;
    if (dataset->dxpl >= 0)
        iot_list_close(dataset->dxpl);
    iot_list_discard(&dataset->not_effective);
    free(part->name);
    free(dataset->applied_creation);
    free(dataset);
}

/* `, "hdf5_version": "1.10.8", "async_api": "..."` */
static void report_file(struct buf *out, const struct iot_file *file)
{
    unsigned major = 0, minor = 0, release = 0;
    (void)file;
    H5get_libversion(&major, &minor, &release);
    PUT(out, ", \"hdf5_version\": \"");
    put_int(out, major);
    PUT(out, ".");
    put_int(out, minor);
    PUT(out, ".");
    put_int(out, release);
    PUT(out, "\", \"async_api\": ");
    put_string(out, async_api);
}

/* What was set on the dataset's creation list and on its writes' transfer lists. */
static void write_dataset_applied(struct buf *out, const struct iot_dataset *d)
{
    int creation = d->applied_creation && d->applied_creation[0];
    PUT(out, "{");
    if (creation)
        put(out, d->applied_creation);
    if (d->transfer_set) {
        const struct iot_value *mode = &d->resolved->settings.v[IOT_K_DATASET_TRANSFER_MODE];
        put(out, creation ? ", \"transfer_mode\": \"" : "\"transfer_mode\": \"");
        put(out, IOT_KEYS[IOT_K_DATASET_TRANSFER_MODE].values[mode->i]);
        PUT(out, "\"");
    }
    PUT(out, "}");
}

static void report_part(struct buf *out, struct iot_part *part)
{
    struct iot_dataset *d = (struct iot_dataset *)part;
    PUT(out, ", \"matched\": ");
    iot_put_labels(out, d->resolved->matched);
    PUT(out, ", \"applied\": ");
    write_dataset_applied(out, d);
    PUT(out, ", \"effective\": ");
    iot_write_dataset_effective(out, d);
    PUT(out, ", \"not_effective\": ");
    iot_list_put(out, &d->not_effective);
}

static void shutdown(void)
{
    iot_hdf5_forget_pending();
    iot_apply_free();
    iot_datasets_free_all();
}

const struct iot_layer iot_hdf5_layer = {
    .api = "hdf5",
    .blocks = IOT_B_OPENMPI | IOT_B_LUSTRE | IOT_B_MPIIO | IOT_B_HDF5 | IOT_B_DATASET,
    .init = iot_capture_init,
    .file_new = file_new,
    .file_free = file_free,
    .part_new = part_new,
    .part_free = part_free,
    .report_file = report_file,
    .report_part = report_part,
    .shutdown = shutdown,
};
IOT_REGISTER_LAYER(iot_hdf5_layer)
