#define _GNU_SOURCE
#include "lustre/lustre.h"

#include "core/filesystem.h"
#include "core/keys.h"
#include "core/layer.h"
#include "core/text.h"
#include "lustre/layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A pool name into a component: 0, or -ENAMETOOLONG for one Lustre cannot take
 * (LOV_MAXPOOLNAME: 15 characters). */
static int pool_into(struct iot_layout_component *c, const struct iot_value *pool)
{
    if (!pool->set)
        return 0;
    if (strlen(pool->s) >= sizeof c->pool)
        return -ENAMETOOLONG;
    snprintf(c->pool, sizeof c->pool, "%s", pool->s);
    return 0;
}

/* A stripe count as llapi takes it: 0, the file system's default, is left unset. */
static long long stripe_count(const struct iot_value *count)
{
    return count->set && count->i != 0 ? count->i : IOT_LAYOUT_UNSET;
}

/* The plain keys' component: the whole layout, or what a component leaves out takes (as
 * iosim's sim-models/src/fs/lustre_layout.cpp gives it). */
static int plain_component(const struct iot_value *v, struct iot_layout_component *c)
{
    memset(c, 0, sizeof *c);
    c->end = IOT_LAYOUT_EOF;
    c->stripe_count = stripe_count(&v[IOT_K_LUSTRE_STRIPE_COUNT]);
    c->stripe_size = v[IOT_K_LUSTRE_STRIPE_SIZE].set ? v[IOT_K_LUSTRE_STRIPE_SIZE].i
                                                     : IOT_LAYOUT_UNSET;
    return pool_into(c, &v[IOT_K_LUSTRE_POOL]);
}

/* One entry of lustre.components: to its end, on the metadata target or on its stripes. */
static int component_of(const struct iot_settings *entry, const struct iot_layout_component *plain,
                        struct iot_layout_component *c)
{
    const struct iot_value *v = entry->v;
    *c = *plain;
    c->end = v[IOT_K_LUSTRE_COMPONENTS_END].s ? IOT_LAYOUT_EOF
                                              : (uint64_t)v[IOT_K_LUSTRE_COMPONENTS_END].i;
    c->mdt = v[IOT_K_LUSTRE_COMPONENTS_MDT].set && v[IOT_K_LUSTRE_COMPONENTS_MDT].i;
    if (c->mdt) {   /* Data-on-MDT: no stripes, no pool (the validator refuses them) */
        c->stripe_count = c->stripe_size = IOT_LAYOUT_UNSET;
        c->pool[0] = '\0';
        return 0;
    }
    if (v[IOT_K_LUSTRE_COMPONENTS_STRIPE_COUNT].set)
        c->stripe_count = stripe_count(&v[IOT_K_LUSTRE_COMPONENTS_STRIPE_COUNT]);
    if (v[IOT_K_LUSTRE_COMPONENTS_STRIPE_SIZE].set)
        c->stripe_size = v[IOT_K_LUSTRE_COMPONENTS_STRIPE_SIZE].i;
    return pool_into(c, &v[IOT_K_LUSTRE_COMPONENTS_POOL]);
}

/* The layout of the settings' lustre keys: their components (lustre.components), or one
 * plain component. 0, -ENAMETOOLONG for a pool name Lustre cannot take, or -E2BIG for more
 * components than IOT_LAYOUT_MAX_COMPONENTS. */
int iot_lustre_layout_of(const struct iot_settings *settings, struct iot_layout *layout)
{
    const struct iot_value *v = settings->v, *list = &v[IOT_K_LUSTRE_COMPONENTS];
    struct iot_layout_component plain;
    memset(layout, 0, sizeof *layout);
    layout->stripe_offset = v[IOT_K_LUSTRE_STRIPE_OFFSET].set ? v[IOT_K_LUSTRE_STRIPE_OFFSET].i
                                                              : IOT_LAYOUT_UNSET;
    int rc = plain_component(v, &plain);
    if (rc == 0 && list->nrecords > IOT_LAYOUT_MAX_COMPONENTS)
        rc = -E2BIG;
    if (rc || !list->set) {
        layout->ncomponents = 1;
        layout->component[0] = plain;
        return rc;
    }
    for (int i = 0; i < list->nrecords; i++)
        if ((rc = component_of(&list->records[i], &plain, &layout->component[i])) != 0)
            return rc;
    layout->ncomponents = list->nrecords;
    return 0;
}

int iot_lustre_unmade(const struct iot_settings *settings, int from, char *key, size_t len)
{
    const struct iot_value *list = &settings->v[IOT_K_LUSTRE_COMPONENTS];
    for (int i = from < 0 ? 0 : from; i < list->nrecords; i++)
        if (list->records[i].v[IOT_K_LUSTRE_COMPONENTS_EXTENSION_SIZE].set) {
            snprintf(key, len, "lustre.components[%d].extension_size", i);
            return i;
        }
    return -1;
}

static int striping_set(const struct iot_value *v)
{
    return v[IOT_K_LUSTRE_STRIPE_COUNT].set || v[IOT_K_LUSTRE_STRIPE_SIZE].set
        || v[IOT_K_LUSTRE_STRIPE_OFFSET].set || v[IOT_K_LUSTRE_POOL].set
        || v[IOT_K_LUSTRE_COMPONENTS].set;
}

void iot_lustre_reason(int rc, char *reason, size_t len)
{
    if (rc == -EEXIST)
        snprintf(reason, len, "the file exists already: its layout is fixed when a file is "
                 "created");
    else if (rc == -ENAMETOOLONG)
        snprintf(reason, len, "the pool name is longer than Lustre's %d characters",
                 IOT_POOL_LEN - 1);
    else if (rc == -E2BIG)
        snprintf(reason, len, "the layout has more than the %d components the interposer makes",
                 IOT_LAYOUT_MAX_COMPONENTS);
    else
        snprintf(reason, len, "liblustreapi could not create the file with its layout: %s",
                 rc == -ENOSYS ? "no liblustreapi.so.1 with llapi_layout_file_create could be "
                 "loaded" : strerror(-rc));
}

/* Rank 0 creates the file with the layout first (`replace`: after removing it; else only if
 * it does not exist); every rank learns whether that worked. */
static int precreate(struct iot_file *file, const char *name, int replace)
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
        if (rc == 0 && replace)
            unlink(name);
        if (rc == 0)
            rc = iot_layout_create(name, &layout);
    }
    if (file->comm != MPI_COMM_NULL)
        MPI_Bcast(&rc, 1, MPI_INT, 0, file->comm);
    if (rc) {
        iot_lustre_reason(rc, reason, sizeof reason);
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL, reason);
        return 0;
    }
    char key[64];
    for (int i = iot_lustre_unmade(&file->settings, 0, key, sizeof key); i >= 0;
         i = iot_lustre_unmade(&file->settings, i + 1, key, sizeof key))
        iot_not_effective(&file->not_effective, key, NULL, NULL, IOT_LUSTRE_UNMADE_REASON);
    return 1;
}

int iot_lustre_striping_set(const struct iot_file *file)
{
    return striping_set(file->settings.v);
}

int iot_lustre_precreates(const struct iot_file *file, const char *name, enum iot_lustre_open how)
{
    char fs[32];
    return how >= IOT_CREATE_IF_ABSENT && striping_set(file->settings.v)
        && iot_filesystem(name, fs, sizeof fs) == IOTWIN_FS_LUSTRE;
}

int iot_lustre_before_open(struct iot_file *file, const char *name, enum iot_lustre_open how)
{
    if (!striping_set(file->settings.v))
        return 0;
    if (how == IOT_OPENING) {
        iot_not_effective(&file->not_effective, "lustre", NULL, NULL,
                          "striping is fixed when a file is created; this file was opened");
        return 0;
    }
    return iot_lustre_precreates(file, name, how)
        && precreate(file, name, how == IOT_CREATE_REPLACING);
}

/* Whether the key reaches the file as an MPI-IO hint the program's open was given. */
static int carried_by_hint(const struct iot_file *file, int id)
{
    int flag = 0;
    char value[MPI_MAX_INFO_VAL + 1];
    if (!IOT_KEYS[id].hint || file->requested == MPI_INFO_NULL)
        return 0;
    MPI_Info_get(file->requested, IOT_KEYS[id].hint, MPI_MAX_INFO_VAL, value, &flag);
    return flag;
}

static void report_off_lustre(struct iot_file *file)
{
    char key[64], text[256], reason[256];
    snprintf(reason, sizeof reason, "the file is on %s, not Lustre: a layout (stripes, pool, "
             "components) is made through liblustreapi when a file is created on Lustre",
             file->fs_type);
    for (int id = 0; id < IOT_NKEYS; id++) {
        const struct iot_value *value = &file->settings.v[id];
        if (!value->set || !iot_key_in_blocks(id, IOT_B_LUSTRE) || carried_by_hint(file, id))
            continue;
        iot_key_path(id, key, sizeof key);
        iot_not_effective(&file->not_effective, key,
                          iot_requested_text(id, value, text, sizeof text), NULL, reason);
    }
}

void iot_lustre_readback(struct iot_file *file, enum iotwin_fs fs, struct buf *out)
{
    struct iot_layout layout;
    if (fs != IOTWIN_FS_LUSTRE)
        report_off_lustre(file);
    if (fs != IOTWIN_FS_LUSTRE || iot_layout_read(file->name, &layout) != 0) {
        PUT(out, ", \"lustre\": null");
        return;
    }
    PUT(out, ", \"lustre\": ");
    iot_layout_json(out, &layout);
}
