#define _GNU_SOURCE
#include "posix/writes.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/runtime.h"

#define EXPORT __attribute__((visibility("default")))
#define FDS 4096   /* descriptors tracked; higher ones are checked at each write */

enum fd_state { FD_UNKNOWN, FD_COUNTED, FD_IGNORED };

static unsigned char fd_state[FDS];
static struct iot_outside outside;

static struct {
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*pwrite64)(int, const void *, size_t, off64_t);
    ssize_t (*writev)(int, const struct iovec *, int);
    size_t (*fwrite)(const void *, size_t, size_t, FILE *);
    int (*close)(int);
} real;

static void resolve(void)
{
    *(void **)&real.write = dlsym(RTLD_NEXT, "write");
    *(void **)&real.pwrite = dlsym(RTLD_NEXT, "pwrite");
    *(void **)&real.pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    *(void **)&real.writev = dlsym(RTLD_NEXT, "writev");
    *(void **)&real.fwrite = dlsym(RTLD_NEXT, "fwrite");
    *(void **)&real.close = dlsym(RTLD_NEXT, "close");
}

#define REAL(name) (real.name ? real.name : (resolve(), real.name))

static void note_file(int fd)
{
    char link[64], name[512];
    size_t used = strlen(outside.examples);
    outside.files++;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, name, sizeof name - 1);
    if (n <= 0 || used + (size_t)n + 2 > sizeof outside.examples)
        return;
    name[n] = '\0';
    snprintf(outside.examples + used, sizeof outside.examples - used, "%s\n", name);
}

/* Whether a write of the program's own on fd counts (then the first one names the file). */
static int counts(int fd)
{
    struct stat info;
    if (fd < 0)
        return 0;
    if (iot_depth) {   /* HDF5's or the MPI library's: never the program's */
        if (fd < FDS)
            fd_state[fd] = FD_IGNORED;
        return 0;
    }
    if (fd < FDS && fd_state[fd] != FD_UNKNOWN)
        return fd_state[fd] == FD_COUNTED;
    int regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    if (fd < FDS) {
        fd_state[fd] = regular ? FD_COUNTED : FD_IGNORED;
        if (regular)
            note_file(fd);
    }
    return regular;
}

static void count(int fd, ssize_t written)
{
    if (written > 0 && counts(fd)) {
        __atomic_fetch_add(&outside.bytes, (long long)written, __ATOMIC_RELAXED);
        __atomic_fetch_add(&outside.writes, 1, __ATOMIC_RELAXED);
    }
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    ssize_t written = REAL(write)(fd, buf, n);
    count(fd, written);
    return written;
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    ssize_t written = REAL(pwrite)(fd, buf, n, offset);
    count(fd, written);
    return written;
}

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t offset)
{
    ssize_t written = REAL(pwrite64)(fd, buf, n, offset);
    count(fd, written);
    return written;
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    ssize_t written = REAL(writev)(fd, iov, n);
    count(fd, written);
    return written;
}

/* C stdio writes through the C library's internal write, which no preload sees. */
EXPORT size_t fwrite(const void *data, size_t size, size_t n, FILE *stream)
{
    size_t items = REAL(fwrite)(data, size, n, stream);
    if (items && !iot_depth)
        count(fileno(stream), (ssize_t)(items * size));
    return items;
}

EXPORT int close(int fd)
{
    if (fd >= 0 && fd < FDS)
        fd_state[fd] = FD_UNKNOWN;
    return REAL(close)(fd);
}

void iot_posix_outside(struct iot_outside *out)
{
    *out = outside;
}
