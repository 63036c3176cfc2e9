#define _GNU_SOURCE
#include "core/report.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "core/json.h"

/* --- the JSON line ----------------------------------------------------------------------------- */

static void write_labels(FILE *out, const char *matched)
{
    char *copy = strdup(matched), *save = NULL;
    int n = 0;
    fputc('[', out);
    for (char *label = strtok_r(copy, ",", &save); label; label = strtok_r(NULL, ",", &save)) {
        fputs(n++ ? ", " : "", out);
        json_string(out, label);
    }
    fputc(']', out);
    free(copy);
}

/* What was set on the dataset's creation list and on its writes' transfer lists. */
static void write_dataset_applied(FILE *out, const struct iot_dataset *d)
{
    int n = d->applied_creation && d->applied_creation[0];
    fputc('{', out);
    if (n)
        fputs(d->applied_creation, out);
    if (d->transfer_set) {
        const struct iot_value *mode = &d->settings.v[IOT_K_DATASET_TRANSFER_MODE];
        fprintf(out, "%s\"transfer_mode\": ", iot_json_sep(&n));
        json_string(out, IOT_KEYS[IOT_K_DATASET_TRANSFER_MODE].values[mode->i]);
    }
    fputc('}', out);
}

static void write_dataset(FILE *out, struct iot_dataset *d)
{
    fputs("{\"name\": ", out);
    json_string(out, d->name);
    fputs(", \"matched\": ", out);
    write_labels(out, d->matched);
    fputs(", \"applied\": ", out);
    write_dataset_applied(out, d);
    fputs(", \"effective\": ", out);
    fputs(d->effective ? d->effective : "null", out);
    fputs(", \"not_effective\": ", out);
    iot_list_write(out, &d->not_effective);
    fprintf(out, ", \"writes\": {\"calls\": %lld, \"bytes\": %lld, \"seconds\": %.6f}}",
            d->calls, d->bytes, d->seconds);
}

/* `"hdf5_version": "1.10.8", "async_api": "..."` of an HDF5 file; null for an MPI-IO one. */
static void write_hdf5_library(FILE *out, const struct iot_file *file, const struct iot_run *run)
{
    unsigned major = 0, minor = 0, release = 0;
    if (file->api != IOT_API_HDF5) {
        fputs(", \"hdf5_version\": null, \"async_api\": null", out);
        return;
    }
    H5get_libversion(&major, &minor, &release);
    fprintf(out, ", \"hdf5_version\": \"%u.%u.%u\", \"async_api\": ", major, minor, release);
    json_string(out, run->async_api);
}

static void write_report(FILE *out, struct iot_file *file, const struct iot_run *run, int ranks)
{
    fputs("{\"iotwin_report\": 1, \"file\": ", out);
    json_string(out, file->name);
    fprintf(out, ", \"api\": \"%s\", \"how\": \"%s\", \"ranks\": %d, \"fs\": \"%s\", "
            "\"driver\": \"%s\"", file->api == IOT_API_MPIIO ? "mpiio" : "hdf5", file->how,
            ranks, file->fs_type, file->mpio ? "mpio" : "other");
    write_hdf5_library(out, file, run);
    fputs(", \"config\": ", out);
    json_string(out, run->config_path);
    fputs(", \"config_error\": ", out);
    json_string(out, run->config_error);
    fputs(", \"matched\": ", out);
    write_labels(out, file->matched);
    fprintf(out, ", \"applied\": %s, \"effective\": %s, \"not_effective\": ",
            file->applied ? file->applied : "{}", file->effective ? file->effective : "null");
    iot_list_write(out, &file->not_effective);
    fprintf(out, ", \"timings\": {\"open_s\": %.6f, \"write_s\": %.6f, \"flush_s\": %.6f, "
            "\"close_s\": %.6f}, \"span\": {\"open\": %.6f, \"closed\": %.6f}, "
            "\"bytes\": %lld, \"writes\": %lld, \"datasets\": [",
            file->open_s, file->write_s, file->flush_s, file->close_s, file->t_open,
            file->t_close, file->bytes, file->writes);
    for (int i = 0; i < file->ndatasets; i++) {
        fputs(i ? ", " : "", out);
        write_dataset(out, file->datasets[i]);
    }
    fputs("]}\n", out);
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

void iot_report_write(struct iot_file *file, const struct iot_run *run, int ranks)
{
    if (!run->report_path)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    write_report(out, file, run, ranks);
    fclose(out);
    iot_append_line(run->report_path, text, len);
    free(text);
}
