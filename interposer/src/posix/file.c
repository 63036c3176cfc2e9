#define _GNU_SOURCE
#include "posix/file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "core/runtime.h"
#include "posix/capture.h"
#include "posix/layer.h"
#include "posix/layout.h"
#include "posix/writes.h"

static struct iot_posix_file *by_fd[IOT_POSIX_FDS];

static int writes_to(int flags)
{
    return (flags & O_ACCMODE) != O_RDONLY;
}

/* Whether a rule of the config's `files` list (not the top level alone) matched the file. */
static int named_by_rule(const char *matched)
{
    return strstr(matched, "files[") != NULL;
}

struct iot_posix_file *iot_posix_before_open(const char *path, int *flags)
{
    struct stat info;
    if (!writes_to(*flags))
        return NULL;
    int exists = stat(path, &info) == 0;
    if (exists && !S_ISREG(info.st_mode))
        return NULL;
    if (!exists && !(*flags & O_CREAT))
        return NULL;
    struct iot_file *file = iot_file_new(&iot_posix_layer, path, exists ? "open" : "create");
    struct iot_posix_file *pf = file->state;
    if (!pf) {
        iot_file_forget(file);
        return NULL;
    }
    iot_settings_for(&pf->file->settings, pf->file->matched, path, NULL);
    pf->named = named_by_rule(pf->file->matched);
    if (iot_posix_layout_at_create(pf->file, path, exists))
        *flags &= ~O_EXCL;   /* the layout's create made the file the program asked to make */
    return pf;
}

static void forget(struct iot_posix_file *pf)
{
    iot_file_forget(pf->file);   /* and pf with it (posix/layer.c) */
}

void iot_posix_after_open(struct iot_posix_file *pf, int fd, double start, double end)
{
    struct stat info;
    if (fd < 0 || fd >= IOT_POSIX_FDS || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        forget(pf);
        return;
    }
    pf->file->open_s = end - start;
    pf->file->t_open = iot_capture_epoch_of(start);
    iot_posix_layout_readback(pf->file);
    iot_capture_start(pf->file, pf->file->t_open, iot_capture_epoch_of(end));
    if (by_fd[fd])   /* a descriptor closed behind the hooks' back (dup2 onto it, say) */
        iot_posix_closed(fd, start, start);
    by_fd[fd] = pf;
}

struct iot_posix_file *iot_posix_file_of(int fd)
{
    return fd >= 0 && fd < IOT_POSIX_FDS ? by_fd[fd] : NULL;
}

/* A write or a sync (bytes 0) kept for the capture, in the order made. */
static void record(struct iot_posix_file *pf, long long offset, long long bytes, double start,
                   double end)
{
    if (pf->failed || !iot_capture_enabled())
        return;
    if (!iot_room(&pf->writes, &pf->write_cap, (size_t)pf->nwrites + 1, sizeof *pf->writes)) {
        pf->failed = "out of memory";
        return;
    }
    pf->writes[pf->nwrites++] = (struct iot_posix_write){
        offset, bytes, iot_capture_epoch_of(start), iot_capture_epoch_of(end)};
}

void iot_posix_wrote(struct iot_posix_file *pf, long long offset, long long bytes,
                     double start, double end)
{
    struct iot_file *file = pf->file;
    file->write_s += end - start;
    file->writes++;
    file->bytes += bytes;
    record(pf, offset, bytes, start, end);
}

void iot_posix_synced(struct iot_posix_file *pf, double start, double end)
{
    pf->file->flush_s += end - start;
    record(pf, 0, 0, start, end);
}

/* A data file is reported and captured; any other is counted as written outside. */
static void finish(struct iot_posix_file *pf, double start, double end)
{
    struct iot_file *file = pf->file;
    if (!pf->named && file->bytes < IOT_POSIX_DATA_BYTES) {
        iot_posix_outside_add(file->name, file->bytes, file->writes);
        forget(pf);
        return;
    }
    file->close_s = end - start;
    file->t_close = iot_capture_epoch_of(end);
    iot_posix_capture_close(pf, iot_capture_epoch_of(start), file->t_close);
    iot_report_close(file, &iot_rt.run);   /* takes the record over, pf with it */
}

void iot_posix_disown(int fd)
{
    struct iot_posix_file *pf = iot_posix_file_of(fd);
    if (pf) {
        by_fd[fd] = NULL;
        forget(pf);
    }
}

void iot_posix_closed(int fd, double start, double end)
{
    struct iot_posix_file *pf = iot_posix_file_of(fd);
    if (!pf)
        return;
    by_fd[fd] = NULL;
    iot_depth++;   /* the report's and the capture's own writes */
    finish(pf, start, end);
    iot_depth--;
}

void iot_posix_close_all(void)
{
    double now = iot_now();
    for (int fd = 0; fd < IOT_POSIX_FDS; fd++)
        if (by_fd[fd])
            iot_posix_closed(fd, now, now);
}
