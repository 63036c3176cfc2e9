#define _GNU_SOURCE
#include "core/report.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/text.h"
#include "core/config.h"
#include "core/json.h"
#include "hdf5/readback.h"

/* --- the JSON line ----------------------------------------------------------------------------- */

/* "top,files[0]" -> ["top", "files[0]"] */
static void write_labels(struct buf *out, const char *matched)
{
    PUT(out, "[");
    for (const char *label = matched; *label;) {
        size_t n = strcspn(label, ",");
        if (label != matched)
            PUT(out, ", ");
        PUT(out, "\"");
        put_bytes(out, label, n);   /* block labels need no escaping */
        PUT(out, "\"");
        label += n + (label[n] == ',');
    }
    PUT(out, "]");
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

static void write_dataset(struct buf *out, struct iot_dataset *d)
{
    PUT(out, "{\"name\": ");
    put_string(out, d->name);
    PUT(out, ", \"matched\": ");
    write_labels(out, d->resolved->matched);
    PUT(out, ", \"applied\": ");
    write_dataset_applied(out, d);
    PUT(out, ", \"effective\": ");
    iot_write_dataset_effective(out, d);
    PUT(out, ", \"not_effective\": ");
    iot_list_put(out, &d->not_effective);
    PUT(out, ", \"writes\": {\"calls\": ");
    put_int(out, d->calls);
    PUT(out, ", \"bytes\": ");
    put_int(out, d->bytes);
    PUT(out, ", \"seconds\": ");
    put_seconds(out, d->seconds);
    PUT(out, "}}");
}

/* `"hdf5_version": "1.10.8", "async_api": "..."` of an HDF5 file; null for an MPI-IO one. */
static void write_hdf5_library(struct buf *out, const struct iot_file *file,
                               const struct iot_run *run)
{
    unsigned major = 0, minor = 0, release = 0;
    if (file->api != IOT_API_HDF5) {
        PUT(out, ", \"hdf5_version\": null, \"async_api\": null");
        return;
    }
    H5get_libversion(&major, &minor, &release);
    PUT(out, ", \"hdf5_version\": \"");
    put_int(out, major);
    PUT(out, ".");
    put_int(out, minor);
    PUT(out, ".");
    put_int(out, release);
    PUT(out, "\", \"async_api\": ");
    put_string(out, run->async_api);
}

static void write_nullable_string(struct buf *out, const char *text)
{
    if (text)
        put_string(out, text);
    else
        PUT(out, "null");
}

static void write_seconds(struct buf *out, const char *name, double seconds)
{
    put(out, name);
    put_seconds(out, seconds);
}

void iot_put_file_identity(struct buf *out, const struct iot_file *file)
{
    PUT(out, "\"file\": ");
    put_string(out, file->name);
    put(out, file->api == IOT_API_MPIIO ? ", \"api\": \"mpiio\"" : ", \"api\": \"hdf5\"");
    PUT(out, ", \"how\": \"");
    put(out, file->how);
    PUT(out, "\"");
}

static void write_report(struct buf *out, struct iot_file *file, const struct iot_run *run,
                         int ranks)
{
    PUT(out, "{\"iotwin_report\": 1, ");
    iot_put_file_identity(out, file);
    PUT(out, ", \"ranks\": ");
    put_int(out, ranks);
    PUT(out, ", \"fs\": \"");
    put(out, file->fs_type);
    PUT(out, "\", \"driver\": \"");
    put(out, file->driver);
    PUT(out, "\"");
    write_hdf5_library(out, file, run);
    PUT(out, ", \"config\": ");
    write_nullable_string(out, run->config_path);
    PUT(out, ", \"config_error\": ");
    write_nullable_string(out, run->config_error);
    PUT(out, ", \"matched\": ");
    write_labels(out, file->matched);
    PUT(out, ", \"applied\": ");
    put(out, file->applied ? file->applied : "{}");
    PUT(out, ", \"effective\": ");
    put(out, file->effective ? file->effective : "null");
    PUT(out, ", \"not_effective\": ");
    iot_list_put(out, &file->not_effective);
    write_seconds(out, ", \"timings\": {\"open_s\": ", file->open_s);
    write_seconds(out, ", \"write_s\": ", file->write_s);
    write_seconds(out, ", \"flush_s\": ", file->flush_s);
    write_seconds(out, ", \"close_s\": ", file->close_s);
    if (file->api == IOT_API_MPIIO)
        write_seconds(out, ", \"read_s\": ", file->read_s);
    write_seconds(out, "}, \"span\": {\"open\": ", file->t_open);
    write_seconds(out, ", \"closed\": ", file->t_close);
    PUT(out, "}, \"bytes\": ");
    put_int(out, file->bytes);
    PUT(out, ", \"writes\": ");
    put_int(out, file->writes);
    if (file->api == IOT_API_MPIIO) {
        PUT(out, ", \"read_bytes\": ");
        put_int(out, file->read_bytes);
        PUT(out, ", \"reads\": ");
        put_int(out, file->reads);
    }
    PUT(out, ", \"datasets\": [");
    for (int i = 0; i < file->ndatasets; i++) {
        if (i)
            PUT(out, ", ");
        write_dataset(out, file->datasets[i]);
    }
    PUT(out, "]}\n");
}

int iot_append_line(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t written = write(fd, text, len);   /* best effort: never fail the application */
    close(fd);
    return written == (ssize_t)len ? 0 : -1;
}

/* A report's size, roughly: a file's part with its hints (~2 KiB) and each dataset's record
 * (300-450 bytes). */
enum { REPORT_BYTES = 4096, DATASET_BYTES = 512 };

void iot_report_write(struct iot_file *file, const struct iot_run *run, int ranks)
{
    if (!run->report_path)
        return;
    struct buf out = {NULL, 0, 0, 0};
    buf_reserve(&out, REPORT_BYTES + DATASET_BYTES * (size_t)file->ndatasets);
    write_report(&out, file, run, ranks);
    if (!out.failed)
        iot_append_line(run->report_path, out.s, out.len);
    free(out.s);
}
