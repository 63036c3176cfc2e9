/* Turning resolved settings into HDF5 property lists. Each function works on a copy of the
 * application's list (never on the list itself), made only when a setting changes it, and
 * records what it set (JSON) in the file/dataset record. The MPI-IO
 * hints are merged into the info of the MPI file HDF5 opens, by the MPI-IO layer. */
#pragma once
#include <hdf5.h>

#include "core/records.h"

/* A new file access list: the application's (`given`, never H5P_DEFAULT) plus the settings'
 * HDF5 properties, or -1 when they set none; sets file->mpio and file->requested (the hints
 * to merge at MPI_File_open). */
hid_t iot_apply_fapl(struct iot_file *file, hid_t given);

/* An amended dataset creation list, or -1 when the settings change nothing: they set no
 * creation property, or the application's list (`own`, read from it; NULL: unknown) has each
 * value already. What it set, or found set, goes to dataset->applied_creation; the settings of
 * the list returned to *given. Give it back with iot_release_dcpl (copies of the default list
 * are kept for the next datasets). */
int iot_sets_dcpl(const struct iot_settings *settings);   /* any creation property */
hid_t iot_apply_dcpl(struct iot_dataset *dataset, hid_t app_dcpl, const struct iot_creation *own,
                     struct iot_creation *given, hid_t type, hid_t space);
void iot_release_dcpl(hid_t dcpl);
void iot_apply_free(void);   /* at unload */

/* The transfer mode the settings ask for; 0 when they ask for none. */
int iot_transfer_mode(const struct iot_settings *settings, H5FD_mpio_xfer_t *mode);
