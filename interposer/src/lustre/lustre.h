/* The file system under a file, and Lustre striping: set through liblustreapi when a file is
 * created (rank 0 creates it with the layout before the MPI library opens it) and read back
 * from the file, when liblustreapi is present at run time (loaded with dlopen: the interposer
 * has no build-time dependency on Lustre). Every layer that opens files uses it. */
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "core/records.h"

enum iot_fs { IOT_FS_OTHER, IOT_FS_LUSTRE, IOT_FS_GPFS };

/* The type of the file system holding `path` (or its directory, if path does not exist yet). */
enum iot_fs iot_fs_type(const char *path, char *name, size_t len);

/* Before a file is created (`truncating`: its old contents go) or opened: rank 0 of the file's
 * communicator creates it with the settings' striping on Lustre; on an existing file the
 * striping keys are listed as not effective. Collective on file->comm when it creates. */
void iot_lustre_before_open(struct iot_file *file, const char *name, int creating,
                            int truncating);

/* `, "lustre": {"stripe_count": n, "stripe_size": n}` read back, or null off Lustre. */
void iot_lustre_readback(const struct iot_file *file, enum iot_fs fs, FILE *out);
