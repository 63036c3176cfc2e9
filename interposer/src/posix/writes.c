#define _GNU_SOURCE
#include "posix/writes.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runtime.h"
#include "posix/file.h"

enum fd_state { FD_UNKNOWN, FD_COUNTED, FD_IGNORED };

static unsigned char fd_state[IOT_POSIX_FDS];
static struct iot_outside outside;

static void note_name(const char *name)
{
    size_t used = strlen(outside.examples), n = strlen(name);
    outside.files++;
    if (n == 0 || used + n + 2 > sizeof outside.examples)
        return;
    snprintf(outside.examples + used, sizeof outside.examples - used, "%s\n", name);
}

static void note_file(int fd)
{
    char link[64], name[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, name, sizeof name - 1);
    name[n > 0 ? n : 0] = '\0';
    note_name(name);
}

/* Whether a write of the program's own on fd counts (then the first one names the file). */
static int counts(int fd)
{
    struct stat info;
    if (fd < 0)
        return 0;
    if (iot_depth) {   /* HDF5's or the MPI library's: never the program's */
        if (fd < IOT_POSIX_FDS)
            fd_state[fd] = FD_IGNORED;
        return 0;
    }
    if (fd < IOT_POSIX_FDS && fd_state[fd] != FD_UNKNOWN)
        return fd_state[fd] == FD_COUNTED;
    int regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    if (fd < IOT_POSIX_FDS) {
        fd_state[fd] = regular ? FD_COUNTED : FD_IGNORED;
        if (regular)
            note_file(fd);
    }
    return regular;
}

void iot_posix_count_outside(int fd, long long written)
{
    if (iot_rt.ready && !iot_rt.run.report_path)   /* only the run's record holds them */
        return;
    if (written > 0 && counts(fd)) {
        __atomic_fetch_add(&outside.bytes, written, __ATOMIC_RELAXED);
        __atomic_fetch_add(&outside.writes, 1, __ATOMIC_RELAXED);
    }
}

void iot_posix_outside_add(const char *name, long long bytes, long long writes)
{
    if (writes == 0)
        return;
    note_name(name);
    __atomic_fetch_add(&outside.bytes, bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&outside.writes, writes, __ATOMIC_RELAXED);
}

void iot_posix_outside_forget(int fd)
{
    if (fd >= 0 && fd < IOT_POSIX_FDS)
        fd_state[fd] = FD_UNKNOWN;
}

void iot_posix_outside(struct iot_outside *out)
{
    iot_posix_close_all();
    *out = outside;
}
