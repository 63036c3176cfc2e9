#define _GNU_SOURCE
#include "core/libc.h"

#include <dlfcn.h>

/* The next definition after this library's: the C library's. */
static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

int iot_libc_open(const char *path, int flags, mode_t mode)
{
    static int (*real)(const char *, int, ...);
    if (!real)
        *(void **)&real = next("open");
    return real(path, flags, mode);
}

ssize_t iot_libc_write(int fd, const void *data, size_t n)
{
    static ssize_t (*real)(int, const void *, size_t);
    if (!real)
        *(void **)&real = next("write");
    return real(fd, data, n);
}

int iot_libc_close(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = next("close");
    return real(fd);
}
