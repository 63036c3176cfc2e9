/* A file's Lustre layout (lustre/layout.h), set through liblustreapi when a file is created
 * (rank 0 creates it with the layout before the MPI library opens it) and read back from the
 * file, when liblustreapi is present at run time (loaded with dlopen: the interposer has no
 * build-time dependency on Lustre). Every layer that opens files uses it; the file system
 * under a file is the shared rules' iotwin_filesystem. */
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "core/records.h"
#include "iotwin_rules.h"   /* iotwin_filesystem */

/* How a file is opened, as far as its striping goes. */
enum iot_lustre_open {
    IOT_OPENING,             /* an existing file: its striping is fixed */
    IOT_CREATE_EXCLUSIVE,    /* created, failing if it exists: left to the MPI library's hints */
    IOT_CREATE_IF_ABSENT,    /* MPI_MODE_CREATE: an existing file is kept */
    IOT_CREATE_REPLACING,    /* H5F_ACC_TRUNC: an existing file is replaced */
};

/* Whether the file's settings ask for a Lustre layout (then a file created needs file->comm). */
int iot_lustre_striping_set(const struct iot_file *file);

/* Whether iot_lustre_before_open will create the file (then it needs file->comm): striping
 * asked for a file created (not exclusively) on Lustre. */
int iot_lustre_precreates(const struct iot_file *file, const char *name, enum iot_lustre_open how);

/* Before a file is opened: rank 0 of the file's communicator creates it with the settings'
 * striping on Lustre, removing an existing one only when `how` replaces it; on a file opened
 * (or existing) the striping keys are listed as not effective. Collective on file->comm when
 * it creates. 1 when it created the file with its layout. */
int iot_lustre_before_open(struct iot_file *file, const char *name, enum iot_lustre_open how);

/* `, "lustre": {"components": [...]}` read back (lustre/layout.h), or null off Lustre, where
 * each requested lustre key no MPI-IO hint carries (a hint's read-back reports its own) is
 * listed as not effective with the file system's name. */
struct buf;
void iot_lustre_readback(struct iot_file *file, enum iotwin_fs fs, struct buf *out);

struct iot_layout;
/* The layout `settings` ask for (a file's lustre keys: lustre.components, each field it leaves
 * out the plain keys', or the plain keys alone): 0, -ENAMETOOLONG for a pool name longer than
 * Lustre takes, or -E2BIG for more components than lustre/layout.h holds. */
int iot_lustre_layout_of(const struct iot_settings *settings, struct iot_layout *layout);

/* The first component from `from` on that asks for what the layout made does not have (a
 * self-extending component's extension_size), its key path into `key`; or -1. */
int iot_lustre_unmade(const struct iot_settings *settings, int from, char *key, size_t len);
#define IOT_LUSTRE_UNMADE_REASON                                                          \
    "self-extending components (lfs setstripe -z) are not made: the component is created " \
    "to its end"

/* Why a file could not be created with its layout (iot_lustre_layout_of's or
 * iot_layout_create's -errno). */
void iot_lustre_reason(int rc, char *reason, size_t len);
