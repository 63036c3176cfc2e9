/* Lustre striping, set through liblustreapi when a file is created (rank 0 creates it with the
 * layout before the MPI library opens it) and read back from the file, when liblustreapi is
 * present at run time (loaded with dlopen: the interposer has no build-time dependency on
 * Lustre). Every layer that opens files uses it; the file system under a file is the shared
 * rules' iotwin_filesystem. */
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "core/records.h"
#include "iotwin_rules.h"   /* iotwin_filesystem */

/* Before a file is created (`truncating`: its old contents go) or opened: rank 0 of the file's
 * communicator creates it with the settings' striping on Lustre; on an existing file the
 * striping keys are listed as not effective. Collective on file->comm when it creates. */
void iot_lustre_before_open(struct iot_file *file, const char *name, int creating,
                            int truncating);

/* `, "lustre": {"stripe_count": n, "stripe_size": n}` read back, or null off Lustre. */
void iot_lustre_readback(const struct iot_file *file, enum iotwin_fs fs, FILE *out);
