#define _GNU_SOURCE
#include "lustre/lustre.h"

#include "lustre/layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A plain layout of the settings' stripe and pool keys: 0, or -ENAMETOOLONG for a pool name
 * Lustre cannot take (LOV_MAXPOOLNAME: 15 characters). */
int iot_lustre_layout_of(const struct iot_settings *settings, struct iot_layout *layout)
{
    const struct iot_value *v = settings->v;
    memset(layout, 0, sizeof *layout);
    layout->ncomponents = 1;
    struct iot_layout_component *c = &layout->component[0];
    c->end = IOT_LAYOUT_EOF;
    c->stripe_count = v[IOT_K_LUSTRE_STRIPE_COUNT].set && v[IOT_K_LUSTRE_STRIPE_COUNT].i != 0
                      ? v[IOT_K_LUSTRE_STRIPE_COUNT].i : IOT_LAYOUT_UNSET;
    c->stripe_size = v[IOT_K_LUSTRE_STRIPE_SIZE].set ? v[IOT_K_LUSTRE_STRIPE_SIZE].i
                                                     : IOT_LAYOUT_UNSET;
    layout->stripe_offset = v[IOT_K_LUSTRE_STRIPE_OFFSET].set ? v[IOT_K_LUSTRE_STRIPE_OFFSET].i
                                                              : IOT_LAYOUT_UNSET;
    if (!v[IOT_K_LUSTRE_POOL].set)
        return 0;
    if (strlen(v[IOT_K_LUSTRE_POOL].s) >= sizeof c->pool)
        return -ENAMETOOLONG;
    snprintf(c->pool, sizeof c->pool, "%s", v[IOT_K_LUSTRE_POOL].s);
    return 0;
}

static int striping_set(const struct iot_value *v)
{
    return v[IOT_K_LUSTRE_STRIPE_COUNT].set || v[IOT_K_LUSTRE_STRIPE_SIZE].set
        || v[IOT_K_LUSTRE_STRIPE_OFFSET].set || v[IOT_K_LUSTRE_POOL].set;
}

void iot_lustre_reason(int rc, char *reason, size_t len)
{
    if (rc == -EEXIST)
        snprintf(reason, len, "the file exists already: its layout is fixed when a file is "
                 "created");
    else if (rc == -ENAMETOOLONG)
        snprintf(reason, len, "the pool name is longer than Lustre's %d characters",
                 IOT_POOL_LEN - 1);
    else
        snprintf(reason, len, "liblustreapi could not create the file with its layout: %s",
                 rc == -ENOSYS ? "no liblustreapi.so.1 with llapi_layout_file_create could be "
                 "loaded" : strerror(-rc));
}

/* Rank 0 creates the file with the layout first (`replace`: after removing it; else only if
 * it does not exist); every rank learns whether that worked. */
static void precreate(struct iot_file *file, const char *name, int replace)
{
    char reason[160];
    int rank = 0, rc = 0;
    if (file->comm != MPI_COMM_NULL)
        MPI_Comm_rank(file->comm, &rank);
    if (rank == 0 && !replace && access(name, F_OK) == 0)
        rc = -EEXIST;
    else if (rank == 0) {
        struct iot_layout layout;
        rc = iot_lustre_layout_of(&file->settings, &layout);
        if (rc == 0) {
            unlink(name);
            rc = iot_layout_create(name, &layout);
        }
    }
    if (file->comm != MPI_COMM_NULL)
        MPI_Bcast(&rc, 1, MPI_INT, 0, file->comm);
    if (rc) {
        iot_lustre_reason(rc, reason, sizeof reason);
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL, reason);
    }
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
    struct iot_layout layout;
    if (fs != IOTWIN_FS_LUSTRE || iot_layout_read(file->name, &layout) != 0) {
        fputs(", \"lustre\": null", out);
        return;
    }
    fputs(", \"lustre\": ", out);
    iot_layout_json(out, &layout);
}
