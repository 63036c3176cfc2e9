/* What the HDF5 layer's hooks (hdf5/hooks.c) give the rest of the layer. */
#pragma once
#include <hdf5.h>

#include "core/runtime.h"

/* The value of `call`, made as HDF5's own work: the calls made inside it (HDF5's MPI-IO and
 * POSIX calls) pass through the hooks (iot_depth). */
#define IOT_HDF5_INSIDE(call)                     \
    __extension__({                               \
        iot_depth++;                              \
        __typeof__(call) iot_inside_rc = (call);  \
        iot_depth--;                              \
        iot_inside_rc;                            \
    })

/* Forgets the write whose actual I/O mode is still to be read (at unload). */
void iot_hdf5_forget_pending(void);
/* Whether the HDF5 loaded has the async API, for the report (hdf5/layer.c). */
void iot_hdf5_describe_async_api(void);

struct iot_file;
/* The file record of the file `object` (a file, group, dataset or attribute) is in, or NULL. */
struct iot_file *iot_hdf5_file_of(hid_t object);
/* `name` (absolute, or relative to `loc`) as an absolute path, the caller's to free; NULL when
 * out of memory. */
char *iot_hdf5_full_name(hid_t loc, const char *name);
