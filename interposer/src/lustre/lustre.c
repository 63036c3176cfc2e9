#define _GNU_SOURCE
#include "lustre/lustre.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Rank 0 creates the file with the layout first (`replace`: after removing it; else only if
 * it does not exist); every rank learns whether that worked. */
static void precreate(struct iot_file *file, const char *name, int replace)
{
    const struct iot_value *v = file->settings.v;
    char reason[128];
    int rank = 0, rc = 0;
    if (file->comm != MPI_COMM_NULL)
        MPI_Comm_rank(file->comm, &rank);
    if (rank == 0 && !replace && access(name, F_OK) == 0)
        rc = -EEXIST;
    else if (rank == 0) {
        unlink(name);
        rc = lustre_create(name, v[IOT_K_LUSTRE_STRIPE_SIZE].set ? v[IOT_K_LUSTRE_STRIPE_SIZE].i : 0,
                           v[IOT_K_LUSTRE_STRIPE_OFFSET].set ? (int)v[IOT_K_LUSTRE_STRIPE_OFFSET].i : -1,
                           v[IOT_K_LUSTRE_STRIPE_COUNT].set ? (int)v[IOT_K_LUSTRE_STRIPE_COUNT].i : 0);
    }
    if (file->comm != MPI_COMM_NULL)
        MPI_Bcast(&rc, 1, MPI_INT, 0, file->comm);
    if (rc == -EEXIST)
        snprintf(reason, sizeof reason, "the file exists already: striping is fixed when a "
                 "file is created");
    else if (rc)
        snprintf(reason, sizeof reason, "liblustreapi could not create the file: %s",
                 rc == -ENOSYS ? "liblustreapi is not installed" : strerror(-rc));
    if (rc)
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL, reason);
}

int iot_lustre_precreates(const struct iot_file *file, const char *name, enum iot_lustre_open how)
{
    char fs[32];
    return how >= IOT_CREATE_IF_ABSENT && striping_set(file->settings.v)
        && iotwin_filesystem(name, fs, sizeof fs) == IOTWIN_FS_LUSTRE;
}

void iot_lustre_before_open(struct iot_file *file, const char *name, enum iot_lustre_open how)
{
    if (!striping_set(file->settings.v))
        return;
    if (how == IOT_OPENING) {
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL,
                          "striping is fixed when a file is created; this file was opened");
        return;
    }
    if (iot_lustre_precreates(file, name, how))
        precreate(file, name, how == IOT_CREATE_REPLACING);
}

void iot_lustre_readback(const struct iot_file *file, enum iotwin_fs fs, FILE *out)
{
    long long count = 0, size = 0;
    if (fs != IOTWIN_FS_LUSTRE || lustre_layout(file->name, &count, &size) != 0) {
        fputs(", \"lustre\": null", out);
        return;
    }
    fprintf(out, ", \"lustre\": {\"stripe_count\": %lld, \"stripe_size\": %lld}", count, size);
}
