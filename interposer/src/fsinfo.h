/* The file system under a file, and Lustre striping through liblustreapi when it is present
 * at run time (loaded with dlopen: the interposer has no build-time dependency on Lustre). */
#pragma once
#include <stddef.h>

enum iot_fs { IOT_FS_OTHER, IOT_FS_LUSTRE, IOT_FS_GPFS };

/* The type of the file system holding `path` (or its directory, if path does not exist yet). */
enum iot_fs iot_fs_type(const char *path, char *name, size_t len);

/* Create `path` with this striping (llapi_file_create); 0 on success, else -errno or -ENOSYS
 * when liblustreapi is absent. */
int iot_lustre_create(const char *path, long long stripe_size, int stripe_offset, int stripe_count);

/* Read a file's striping back (llapi_layout_*); 0 on success. */
int iot_lustre_layout(const char *path, long long *stripe_count, long long *stripe_size);
