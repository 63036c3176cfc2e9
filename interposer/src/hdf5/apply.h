/* Turning resolved settings into HDF5 property lists, recording what was set (JSON) in the
 * file/dataset record. Settings go on the application's own list for the open or the create and
 * are put back right after (a copy of an MPI-IO access list duplicates its communicator: a
 * collective every rank waits for, once per file; a copy of a creation list costs more than the
 * rest of the creation hook), or on a copy where that cannot be undone exactly (chunking) and
 * for the default lists; a creation list is changed only when a setting changes it. The MPI-IO
 * hints are merged into the info of the MPI file HDF5 opens, by the MPI-IO layer. */
#pragma once
#include <hdf5.h>

#include "hdf5/records.h"

/* The access list a file is opened with. */
struct iot_fapl {
    hid_t id;              /* -1: the application's list as it came (the settings set nothing) */
    int in_place;          /* id is the application's list, to be put back after the open */
    struct iot_access own; /* the application's values */
};

/* The settings' HDF5 properties on the application's list (`given`, never H5P_DEFAULT; a copy
 * of the default list when given is that one) into *fapl; sets file->collective and file->driver,
 * the HDF5 state's access (the values HDF5 gets) and file->requested (the hints to merge at
 * MPI_File_open). */
void iot_apply_fapl(struct iot_file *file, hid_t given, struct iot_fapl *fapl);
/* Right after the open: the application's list as it was (`set`: the values it held for the
 * open, the HDF5 state's access), or the copy closed. */
void iot_fapl_restore(struct iot_fapl *fapl, const struct iot_access *set);

/* The creation list a dataset is created with. */
struct iot_dcpl {
    hid_t id;                /* -1: the application's list as it came */
    int in_place;            /* id is the application's list, to be put back after the create */
    /* when in place, what to put back: the application's fill and alloc time, those changed */
    H5D_fill_time_t fill;
    H5D_alloc_time_t alloc;
    int fill_set, alloc_set;
    unsigned alloc_state;    /* HDF5's: 1 when the application's alloc time follows the layout */
};

/* The settings' creation properties for a dataset into *dcpl: id -1 when they change nothing
 * (they set no creation property, or the application's list, `own` as read from it, NULL:
 * unknown, has each value already); else the application's own list amended for the create
 * (fill and alloc time), or a copy (chunking, or the default list: copies of it are kept for
 * the next datasets). What it set, or found set, goes to dataset->applied_creation; the
 * settings of the list HDF5 gets to *given. Right after the create, iot_dcpl_restore. */
int iot_sets_dcpl(const struct iot_settings *settings);   /* any creation property */
/* The file's driver allocates a dataset's space when it is created, whatever the alloc time of
 * its creation list (the MPI-IO driver: HDF5's H5FD_FEAT_ALLOCATE_EARLY); the dataset's own list
 * still holds the alloc time it was given. */
int iot_driver_allocates_early(const struct iot_file *file);
void iot_apply_dcpl(struct iot_dataset *dataset, const struct iot_file *file, hid_t app_dcpl,
                    const struct iot_creation *own, struct iot_creation *given, hid_t type,
                    hid_t space, struct iot_dcpl *dcpl);
void iot_dcpl_restore(struct iot_dcpl *dcpl);
void iot_apply_free(void);   /* at unload */

/* The transfer mode the settings ask for; 0 when they ask for none. */
int iot_transfer_mode(const struct iot_settings *settings, H5FD_mpio_xfer_t *mode);
