/* Turning resolved settings into HDF5 property lists and MPI-IO hints. Each function works on
 * a copy of the application's list and records what it set (JSON) in the file/dataset record. */
#pragma once
#include <hdf5.h>

#include "records.h"

/* The text a key's value is passed as in an MPI_Info ("4194304", "enable", "true"). */
void iot_hint_text(int key_id, const struct iot_value *value, char *out, size_t len);

/* The path of a key of a block ("openmpi.fcoll"), into out. */
void iot_key_path(int key_id, char *out, size_t len);

/* The key path ("mpiio.cb_nodes", "mpiio.hints.NAME") that asked for a hint, into out. */
void iot_hint_key_path(const char *hint, char *out, size_t len);

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

/* One entry of a `not_effective` list. */
void iot_not_effective(struct iot_list *list, const char *key, const char *requested,
                       const char *effective, const char *reason);
