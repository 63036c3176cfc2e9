#define _GNU_SOURCE
#include "core/filesystem.h"

#include <stdio.h>
#include <string.h>

/* The last directory asked and its answer; a longer directory is asked each time. */
static struct {
    char directory[4096];
    char name[32];
    enum iotwin_fs fs;
} last;

enum iotwin_fs iot_filesystem(const char *path, char *name, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    if (path[0] != '/' || n >= sizeof last.directory)
        return iotwin_filesystem(path, name, len);
    if (strncmp(last.directory, path, n) != 0 || last.directory[n] != '\0') {
        last.fs = iotwin_filesystem(path, last.name, sizeof last.name);
        memcpy(last.directory, path, n);
        last.directory[n] = '\0';
    }
    snprintf(name, len, "%s", last.name);
    return last.fs;
}
