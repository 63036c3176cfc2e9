/* What the HDF5 layer's hooks (hdf5/hooks.c) give the rest of the layer. */
#pragma once
#include <hdf5.h>

/* Forgets the write whose actual I/O mode is still to be read (at unload). */
void iot_hdf5_forget_pending(void);
/* Whether the HDF5 loaded has the async API, for the report (hdf5/layer.c). */
void iot_hdf5_describe_async_api(void);
