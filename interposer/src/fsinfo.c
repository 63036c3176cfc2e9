#define _GNU_SOURCE
#include "fsinfo.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

static const struct {
    long magic;
    const char *name;
    enum iot_fs fs;
} KNOWN_FS[] = {
    {0x0BD00BD0, "lustre", IOT_FS_LUSTRE}, {0x47504653, "gpfs", IOT_FS_GPFS},
    {0xEF53, "ext4", IOT_FS_OTHER},        {0x58465342, "xfs", IOT_FS_OTHER},
    {0x01021994, "tmpfs", IOT_FS_OTHER},   {0x6969, "nfs", IOT_FS_OTHER},
    {0x794c7630, "overlayfs", IOT_FS_OTHER}, {0x9123683E, "btrfs", IOT_FS_OTHER},
    {0x65735546, "fuse", IOT_FS_OTHER},    {0x2FC12FC1, "zfs", IOT_FS_OTHER},
};

enum iot_fs iot_fs_type(const char *path, char *name, size_t len)
{
    struct statfs info;
    int rc = statfs(path, &info);
    if (rc != 0) {
        char *copy = strdup(path);
        rc = statfs(dirname(copy), &info);
        free(copy);
    }
    if (rc != 0) {
        snprintf(name, len, "unknown");
        return IOT_FS_OTHER;
    }
    for (size_t i = 0; i < sizeof KNOWN_FS / sizeof KNOWN_FS[0]; i++)
        if ((uint32_t)info.f_type == (uint32_t)KNOWN_FS[i].magic) {
            snprintf(name, len, "%s", KNOWN_FS[i].name);
            return KNOWN_FS[i].fs;
        }
    snprintf(name, len, "0x%lx", (unsigned long)info.f_type);
    return IOT_FS_OTHER;
}

static void *lustre_api(const char *symbol)
{
    static void *library;
    static int tried;
    if (!tried) {
        tried = 1;
        library = dlopen("liblustreapi.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            library = dlopen("liblustreapi.so", RTLD_NOW | RTLD_LOCAL);
    }
    return library ? dlsym(library, symbol) : NULL;
}

int iot_lustre_create(const char *path, long long stripe_size, int stripe_offset, int stripe_count)
{
    int (*create)(const char *, unsigned long long, int, int, int) =
        (int (*)(const char *, unsigned long long, int, int, int))lustre_api("llapi_file_create");
    if (!create)
        return -ENOSYS;
    return create(path, (unsigned long long)stripe_size, stripe_offset, stripe_count, 0);
}

int iot_lustre_layout(const char *path, long long *stripe_count, long long *stripe_size)
{
    void *(*get)(const char *, uint32_t) =
        (void *(*)(const char *, uint32_t))lustre_api("llapi_layout_get_by_path");
    int (*count)(const void *, uint64_t *) =
        (int (*)(const void *, uint64_t *))lustre_api("llapi_layout_stripe_count_get");
    int (*size)(const void *, uint64_t *) =
        (int (*)(const void *, uint64_t *))lustre_api("llapi_layout_stripe_size_get");
    void (*release)(void *) = (void (*)(void *))lustre_api("llapi_layout_free");
    if (!get || !count || !size || !release)
        return -ENOSYS;
    void *layout = get(path, 0);
    if (!layout)
        return -errno;
    uint64_t c = 0, s = 0;
    int rc = count(layout, &c) || size(layout, &s) ? -EIO : 0;
    release(layout);
    *stripe_count = (long long)c;
    *stripe_size = (long long)s;
    return rc;
}
