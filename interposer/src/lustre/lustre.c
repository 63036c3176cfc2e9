#define _GNU_SOURCE
#include "lustre/lustre.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

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

static int lustre_create(const char *path, long long stripe_size, int stripe_offset, int stripe_count)
{
    int (*create)(const char *, unsigned long long, int, int, int) =
        (int (*)(const char *, unsigned long long, int, int, int))lustre_api("llapi_file_create");
    if (!create)
        return -ENOSYS;
    return create(path, (unsigned long long)stripe_size, stripe_offset, stripe_count, 0);
}

static int lustre_layout(const char *path, long long *stripe_count, long long *stripe_size)
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

static int striping_set(const struct iot_value *v)
{
    return v[IOT_K_LUSTRE_STRIPE_COUNT].set || v[IOT_K_LUSTRE_STRIPE_SIZE].set
        || v[IOT_K_LUSTRE_STRIPE_OFFSET].set;
}

/* Rank 0 creates the file with the layout first; every rank learns whether that worked. */
static void precreate(struct iot_file *file, const char *name)
{
    const struct iot_value *v = file->settings.v;
    char reason[128];
    int rank = 0, rc = 0;
    if (file->comm != MPI_COMM_NULL)
        MPI_Comm_rank(file->comm, &rank);
    if (rank == 0) {
        unlink(name);
        rc = lustre_create(name, v[IOT_K_LUSTRE_STRIPE_SIZE].set ? v[IOT_K_LUSTRE_STRIPE_SIZE].i : 0,
                           v[IOT_K_LUSTRE_STRIPE_OFFSET].set ? (int)v[IOT_K_LUSTRE_STRIPE_OFFSET].i : -1,
                           v[IOT_K_LUSTRE_STRIPE_COUNT].set ? (int)v[IOT_K_LUSTRE_STRIPE_COUNT].i : 0);
    }
    if (file->comm != MPI_COMM_NULL)
        MPI_Bcast(&rc, 1, MPI_INT, 0, file->comm);
    if (rc) {
        snprintf(reason, sizeof reason, "liblustreapi could not create the file: %s",
                 rc == -ENOSYS ? "liblustreapi is not installed" : strerror(-rc));
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL, reason);
    }
}

void iot_lustre_before_open(struct iot_file *file, const char *name, int creating,
                            int truncating)
{
    char fs[32];
    if (!striping_set(file->settings.v))
        return;
    if (!creating) {
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL,
                          "striping is fixed when a file is created; this file was opened");
        return;
    }
    if (truncating && iot_fs_type(name, fs, sizeof fs) == IOT_FS_LUSTRE)
        precreate(file, name);
}

void iot_lustre_readback(const struct iot_file *file, enum iot_fs fs, FILE *out)
{
    long long count = 0, size = 0;
    if (fs != IOT_FS_LUSTRE || lustre_layout(file->name, &count, &size) != 0) {
        fputs(", \"lustre\": null", out);
        return;
    }
    fprintf(out, ", \"lustre\": {\"stripe_count\": %lld, \"stripe_size\": %lld}", count, size);
}
