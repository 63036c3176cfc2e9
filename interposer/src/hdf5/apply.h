/* Turning resolved settings into HDF5 property lists, recording what was set (JSON) in the
 * file/dataset record. A dataset's creation settings go on a copy of the application's list,
 * made only when a setting changes it; a file's access settings on the application's own list
 * for the open, put back right after (a copy of an MPI-IO access list duplicates its
 * communicator: a collective every rank waits for, once per file). The MPI-IO hints are merged
 * into the info of the MPI file HDF5 opens, by the MPI-IO layer. */
#pragma once
#include <hdf5.h>

#include "core/records.h"

/* The access list a file is opened with. */
struct iot_fapl {
    hid_t id;              /* -1: the application's list as it came (the settings set nothing) */
    int in_place;          /* id is the application's list, to be put back after the open */
    struct iot_access own; /* the application's values */
};

/* The settings' HDF5 properties on the application's list (`given`, never H5P_DEFAULT; a copy
 * of the default list when given is that one) into *fapl; sets file->mpio, file->access (the
 * values HDF5 gets) and file->requested (the hints to merge at MPI_File_open). */
void iot_apply_fapl(struct iot_file *file, hid_t given, struct iot_fapl *fapl);
/* Right after the open: the application's list as it was (`set`: the values it held for the
 * open, file->access), or the copy closed. */
void iot_fapl_restore(struct iot_fapl *fapl, const struct iot_access *set);

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
