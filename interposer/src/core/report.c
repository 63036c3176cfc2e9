#define _GNU_SOURCE
#include "core/report.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/config.h"
#include "core/json.h"
#include "core/layer.h"
#include "core/libc.h"

/* --- the JSON line ----------------------------------------------------------------------------- */

/* "top,files[0]" -> ["top", "files[0]"] */
void iot_put_labels(struct buf *out, const char *matched)
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

/* A part's line: its name, the layer's members, its writes. */
static void write_part(struct buf *out, const struct iot_file *file, struct iot_part *part)
{
    PUT(out, "{\"name\": ");
    put_string(out, part->name);
    if (file->layer->report_part)
        file->layer->report_part(out, part);
    iot_put_io(out, "writes", part->calls, part->bytes, part->seconds);
    PUT(out, "}");
}

void iot_put_io(struct buf *out, const char *key, long long calls, long long bytes,
                double seconds)
{
    PUT(out, ", \"");
    put(out, key);
    PUT(out, "\": {\"calls\": ");
    put_int(out, calls);
    PUT(out, ", \"bytes\": ");
    put_int(out, bytes);
    PUT(out, ", \"seconds\": ");
    put_seconds(out, seconds);
    PUT(out, "}");
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
    PUT(out, ", \"api\": \"");
    put(out, file->layer->api);
    PUT(out, "\"");
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
    if (file->layer->report_file)
        file->layer->report_file(out, file);
    PUT(out, ", \"config\": ");
    write_nullable_string(out, run->config_path);
    PUT(out, ", \"config_error\": ");
    write_nullable_string(out, run->config_error);
    PUT(out, ", \"matched\": ");
    iot_put_labels(out, file->matched);
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
    write_seconds(out, ", \"metadata_s\": ", file->metadata_s);
    write_seconds(out, "}, \"span\": {\"open\": ", file->t_open);
    write_seconds(out, ", \"closed\": ", file->t_close);
    PUT(out, "}, \"bytes\": ");
    put_int(out, file->bytes);
    PUT(out, ", \"writes\": ");
    put_int(out, file->writes);
    PUT(out, ", \"datasets\": [");
    for (int i = 0; i < file->nparts; i++) {
        if (i)
            PUT(out, ", ");
        write_part(out, file, file->parts[i]);
    }
    PUT(out, "]}\n");
}

int iot_append_line(const char *path, const char *text, size_t len)
{
    int fd = iot_libc_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t written = iot_libc_write(fd, text, len);   /* best effort: never fail the application */
    iot_libc_close(fd);
    return written == (ssize_t)len ? 0 : -1;
}

/* A report's size, roughly: a file's own with its hints (~2 KiB) and each part's record (an
 * HDF5 dataset's: 300-450 bytes). */
enum { REPORT_BYTES = 4096, PART_BYTES = 512 };

/* The file lines not yet in the report, and the report they go to. An open, a write and a
 * close of the report for each file session cost more than the session's whole report work:
 * the lines go out together at the run's end, or once they fill FLUSH_BYTES. */
static struct {
    struct buf lines;
    const char *path;
} held;
enum { FLUSH_BYTES = 1 << 16 };

void iot_report_flush(void)
{
    if (held.lines.len && !held.lines.failed)
        iot_append_line(held.path, held.lines.s, held.lines.len);
    free(held.lines.s);
    held.lines = (struct buf){NULL, 0, 0, 0};
}

void iot_report_write(struct iot_file *file, const struct iot_run *run, int ranks)
{
    if (!run->report_path)
        return;
    if (held.path != run->report_path)
        iot_report_flush();
    held.path = run->report_path;
    struct buf line = {NULL, 0, 0, 0};
    buf_reserve(&line, REPORT_BYTES + PART_BYTES * (size_t)file->nparts);
    write_report(&line, file, run, ranks);
    if (!line.failed)   /* a line that could not be made whole is left out, never cut */
        put_bytes(&held.lines, line.s, line.len);
    free(line.s);
    if (held.lines.len >= FLUSH_BYTES || held.lines.failed)
        iot_report_flush();
}
