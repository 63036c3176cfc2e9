/* Effective settings: what actually took effect, read back from the open file and datasets
 * (hints from the MPI file ROMIO opened, properties from HDF5's own lists), compared with what
 * was requested; differences go to the record's `not_effective` list with the reason. */
#pragma once
#include "records.h"

void iot_readback_file(struct iot_file *file);
void iot_readback_dataset(struct iot_dataset *dataset, const struct iot_file *file);
const char *iot_layout_name(H5D_layout_t layout);   /* "contiguous", "chunked", ... */
