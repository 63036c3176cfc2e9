/* A POSIX data file's one lever: its layout, fixed when the file is created. The config's
 * `lustre` keys (stripes, pool, components) are made through the Lustre helper (lustre/) when
 * the program creates the file on Lustre; the layout is read back after the open. Every other
 * requested key is listed as not effective with its reason: a `lustre` key off Lustre (the
 * file system named), an MPI-IO hint, HDF5 or dataset setting always (a POSIX file has none:
 * the layer's not_applying). */
#pragma once

#include "core/records.h"

/* Before the program's open of `path` (`exists`: it is there already): 1 when this made the
 * file with its layout (the program's O_EXCL must then go), else 0. */
int iot_posix_layout_at_create(struct iot_file *file, const char *path, int exists);
/* After the open: what was applied and what took effect (file->applied, ->effective,
 * ->not_effective, ->fs_type). */
void iot_posix_layout_readback(struct iot_file *file);
