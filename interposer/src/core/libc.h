/* The C library's own calls for the library's own files (the report, a Lustre file it
 * creates), past any layer's hooks of the same names: a layer counts and captures the
 * program's files, never the interposer's. */
#pragma once
#include <sys/types.h>

int iot_libc_open(const char *path, int flags, mode_t mode);
ssize_t iot_libc_write(int fd, const void *data, size_t n);
int iot_libc_close(int fd);
