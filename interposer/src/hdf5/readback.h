/* Effective settings: what actually took effect, read back from the open file and datasets
 * (hints from the MPI file ROMIO opened, properties from HDF5's own lists), compared with what
 * was requested; differences go to the record's `not_effective` list with the reason. */
#pragma once
#include "core/text.h"
#include "hdf5/records.h"

/* After the open (the HDF5 state's access: the values of the list HDF5 was given). */
void iot_readback_file(struct iot_file *file);
/* The access properties the settings can set, from a list (collective metadata: of an MPI-IO
 * list only). */
void iot_read_access(hid_t fapl, int mpio, struct iot_access *access);
void iot_readback_dataset(struct iot_dataset *dataset, const struct iot_file *file);
/* Its `effective` object as the report lists it (null if it was not read back). */
void iot_write_dataset_effective(struct buf *out, const struct iot_dataset *dataset);
/* Layout, chunk dims, fill and alloc time of a creation list (H5P_DEFAULT: the default list);
 * 0 if it cannot be read. */
int iot_read_creation(hid_t dcpl, struct iot_creation *creation);
/* A dataset just created from `used_dcpl` (the list HDF5 was given; `settings`: its settings
 * if already read, else NULL): its creation properties, read back once per driver and distinct
 * settings of the lists given in a row. */
void iot_readback_created(struct iot_dataset *dataset, const struct iot_file *file,
                          hid_t used_dcpl, const struct iot_creation *settings);
