/* Turning resolved settings into HDF5 property lists (with the MPI-IO hints in the file access
 * list's MPI-IO driver). Each function works on a copy of the application's list and records
 * what it set (JSON) in the file/dataset record. */
#pragma once
#include <hdf5.h>

#include "core/records.h"

/* A new file access list: the application's plus the settings; sets file->comm / requested. */
hid_t iot_apply_fapl(struct iot_file *file, hid_t app_fapl);

/* An amended dataset creation list, or -1 when the settings change nothing; what it set goes
 * to dataset->applied_creation. Give it back with iot_release_dcpl (copies of the default list
 * are kept for the next datasets). */
hid_t iot_apply_dcpl(struct iot_dataset *dataset, hid_t app_dcpl, hid_t type, hid_t space);
void iot_release_dcpl(hid_t dcpl);
void iot_apply_free(void);   /* at unload */

/* The transfer mode the settings ask for; 0 when they ask for none. */
int iot_transfer_mode(const struct iot_settings *settings, H5FD_mpio_xfer_t *mode);
