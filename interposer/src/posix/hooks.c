/* The interposed POSIX calls: the opens that may make a data file (posix/file.h), the writes
 * (a data file's recorded, any other program write to a regular file counted as outside HDF5
 * and MPI-IO: posix/writes.h), a data file's syncs and close. Calls made inside a hooked call of another layer
 * (HDF5's, ROMIO's own writes) pass straight through: they are that layer's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#include "capture/capture.h"
#include "core/runtime.h"
#include "posix/file.h"
#include "posix/writes.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*open_call)(int, const char *, int, ...);

static struct {
    open_call openat;
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*writev)(int, const struct iovec *, int);
    size_t (*fwrite)(const void *, size_t, size_t, FILE *);
    int (*fsync)(int);
    int (*fdatasync)(int);
    int (*close)(int);
} real;

static void resolve(void)
{
    *(void **)&real.openat = dlsym(RTLD_NEXT, "openat");
    *(void **)&real.write = dlsym(RTLD_NEXT, "write");
    *(void **)&real.pwrite = dlsym(RTLD_NEXT, "pwrite");
    *(void **)&real.writev = dlsym(RTLD_NEXT, "writev");
    *(void **)&real.fwrite = dlsym(RTLD_NEXT, "fwrite");
    *(void **)&real.fsync = dlsym(RTLD_NEXT, "fsync");
    *(void **)&real.fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    *(void **)&real.close = dlsym(RTLD_NEXT, "close");
}

#define REAL(name) (real.name ? real.name : (resolve(), real.name))

/* --- opens ------------------------------------------------------------------------------------ */

/* The name a path relative to `dirfd` stands for (the program's own when it is absolute or
 * relative to the working directory, as a config's patterns match it). */
static const char *name_of(int dirfd, const char *path, char *out, size_t len)
{
    if (dirfd == AT_FDCWD || path[0] == '/')
        return path;
    char link[64], dir[3072];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    ssize_t n = readlink(link, dir, sizeof dir - 1);
    if (n <= 0)
        return path;
    dir[n] = '\0';
    snprintf(out, len, "%s/%s", dir, path);
    return out;
}

/* Whether this process is a rank of an MPI program (not its launcher, whose files are not the
 * program's and which must not write a run record of its own): MPI is initialized, or the
 * launcher gave it its rank (MPICH's PMI_RANK, Open MPI's OMPI_COMM_WORLD_RANK, PMIx's). */
static int an_mpi_rank(void)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    return initialized || getenv("PMI_RANK") || getenv("OMPI_COMM_WORLD_RANK")
        || getenv("PMIX_RANK");
}

/* Every open of the program's: through openat, which open, open64, creat and their kin are. */
static int open_at(int dirfd, const char *path, int flags, mode_t mode)
{
    char name[4096];
    if (iot_depth || !path || (flags & O_ACCMODE) == O_RDONLY || !an_mpi_rank())
        return REAL(openat)(dirfd, path, flags, mode);
    iot_runtime_init();
    if (iot_nothing_to_do())
        return REAL(openat)(dirfd, path, flags, mode);
    iot_depth++;   /* the layout's create and its read-back are not the program's */
    struct iot_posix_file *pf = iot_posix_before_open(name_of(dirfd, path, name, sizeof name),
                                                      &flags);
    double start = iot_now();
    int fd = REAL(openat)(dirfd, path, flags, mode);
    double end = iot_now();
    if (pf)
        iot_posix_after_open(pf, fd, start, end);
    iot_depth--;
    return fd;
}

static mode_t mode_arg(int flags, va_list args)
{
    /* as glibc's __OPEN_NEEDS_MODE: O_TMPFILE holds O_DIRECTORY's bit, which alone takes none */
    int needs = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
    return needs ? (mode_t)va_arg(args, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_arg(flags, args);
    va_end(args);
    return open_at(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_arg(flags, args);
    va_end(args);
    return open_at(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_arg(flags, args);
    va_end(args);
    return open_at(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
    va_list args;
    va_start(args, flags);
    mode_t mode = mode_arg(flags, args);
    va_end(args);
    return open_at(dirfd, path, flags | O_LARGEFILE, mode);
}

EXPORT int creat(const char *path, mode_t mode)
{
    return open_at(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

EXPORT int creat64(const char *path, mode_t mode)
{
    return open_at(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC | O_LARGEFILE, mode);
}

/* --- writes ----------------------------------------------------------------------------------- */

/* A data file's write, recorded at `offset` (-1: where the file position was, found from the
 * position after it: a file opened O_APPEND writes at its end, wherever the position was). */
static void data_write(struct iot_posix_file *pf, int fd, long long offset, ssize_t written,
                       double start, double end)
{
    if (written <= 0)
        return;
    if (offset < 0)
        offset = (long long)lseek(fd, 0, SEEK_CUR) - written;
    iot_posix_wrote(pf, offset, written, start, end);
}

/* The real call `call` of a write on fd at `offset` (-1: the file position). */
#define WRITE_HOOK(fd, offset, call)                                            \
    do {                                                                        \
        struct iot_posix_file *pf = iot_posix_file_of(fd);                      \
        if (pf && iot_depth) /* the I/O library's file after all */             \
            iot_posix_disown(fd), pf = NULL;                                    \
        if (!pf) {                                                              \
            ssize_t written = call;                                             \
            iot_posix_count_outside(fd, written);                               \
            return written;                                                     \
        }                                                                       \
        double start = iot_now();                                               \
        ssize_t written = call;                                                 \
        data_write(pf, fd, offset, written, start, iot_now());                  \
        return written;                                                         \
    } while (0)

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    WRITE_HOOK(fd, -1, REAL(write)(fd, buf, n));
}

EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset)
{
    WRITE_HOOK(fd, (long long)offset, REAL(pwrite)(fd, buf, n, offset));
}

/* off_t is 64 bits wide on the 64-bit systems this library is built for: pwrite64 is pwrite. */
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t offset)
{
    WRITE_HOOK(fd, (long long)offset, REAL(pwrite)(fd, buf, n, offset));
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
    WRITE_HOOK(fd, -1, REAL(writev)(fd, iov, n));
}

/* C stdio writes through the C library's internal write, which no preload sees: a stream's
 * writes are counted as outside (a data file is written through descriptors). */
EXPORT size_t fwrite(const void *data, size_t size, size_t n, FILE *stream)
{
    size_t items = REAL(fwrite)(data, size, n, stream);
    if (items && !iot_depth)
        iot_posix_count_outside(fileno(stream), (long long)(items * size));
    return items;
}

/* A data file's sync (IOR's -e) is its flush: I/O time, not computation. */
#define SYNC_HOOK(fd, call)                                                     \
    do {                                                                        \
        struct iot_posix_file *pf = iot_depth ? NULL : iot_posix_file_of(fd);   \
        if (!pf)                                                                \
            return call;                                                        \
        double start = iot_now();                                               \
        int rc = call;                                                          \
        iot_posix_synced(pf, start, iot_now());                                 \
        return rc;                                                              \
    } while (0)

EXPORT int fsync(int fd)
{
    SYNC_HOOK(fd, REAL(fsync)(fd));
}

EXPORT int fdatasync(int fd)
{
    SYNC_HOOK(fd, REAL(fdatasync)(fd));
}

EXPORT int close(int fd)
{
    iot_posix_outside_forget(fd);
    if (iot_depth || !iot_posix_file_of(fd))
        return REAL(close)(fd);
    double start = iot_now();
    int rc = REAL(close)(fd);
    iot_posix_closed(fd, start, iot_now());
    return rc;
}
