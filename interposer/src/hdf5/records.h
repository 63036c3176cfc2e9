/* What the HDF5 layer remembers of a file (its state in the generic record, core/records.h)
 * and of each of its datasets (the file's parts) between open and the report. */
#pragma once
#include <hdf5.h>

#include "capture/creation.h"
#include "core/records.h"

/* The file access properties the settings can set, as a list holds them. */
struct iot_access {
    hsize_t threshold, boundary;   /* alignment */
    hsize_t meta_block;
    size_t sieve;
    hbool_t coll_write, coll_ops;  /* collective metadata (MPI-IO lists only) */
    H5F_libver_t libver_low;       /* the earliest object formats it lets HDF5 write */
};

/* The HDF5 layer's state of a file (file->state). */
struct iot_hdf5_file {
    hid_t id;                 /* HDF5's file id (-1 before the open returns) */
    struct iot_access access; /* as the file holds them (read back after the open) */
};

struct iot_dataset {
    struct iot_part part;     /* its name and writes: first, the file's parts are these */
    hid_t id;                 /* the application's id while open; -1 after H5Dclose */
    const struct iot_resolved *resolved;
    hid_t dxpl;               /* transfer list used for the application's H5P_DEFAULT writes */
    int transfer_set;         /* the settings' transfer mode was set on its writes' lists */
    int have_io_mode;         /* actual transfer mode of the last write, read back from the dxpl */
    H5D_mpio_actual_io_mode_t io_mode;
    uint32_t no_collective_cause;
    char *applied_creation;   /* JSON members (no braces) set on its creation list, or NULL */
    int read_back;            /* its storage was read back (before it closed) */
    haddr_t offset;           /* HADDR_UNDEF: none (chunked, or no space allocated) */
    hsize_t storage_size;
    struct iot_list not_effective;
    int capture_index;        /* 1 + its index in the file's capture; 0: not captured */
    int have_creation;        /* creation read back: where its settings set one, to verify */
    struct iot_creation creation;
};

extern const struct iot_layer iot_hdf5_layer;

static inline struct iot_hdf5_file *iot_h5(const struct iot_file *file)
{
    return file->state;
}

static inline struct iot_dataset *iot_dataset_at(const struct iot_file *file, int index)
{
    return (struct iot_dataset *)file->parts[index];
}

/* An open HDF5 file by its id (NULL: none). */
struct iot_file *iot_hdf5_file_find(hid_t id);
/* Another open HDF5 file of the same name as `file` (NULL: none). */
const struct iot_file *iot_file_open_as(const struct iot_file *file);

/* A dataset's record; id >= 0 registers it as open (as iot_dataset_opened). */
struct iot_dataset *iot_dataset_new(struct iot_file *file, hid_t id, const char *name);
void iot_dataset_opened(struct iot_file *file, struct iot_dataset *dataset, hid_t id);
void iot_dataset_closed(struct iot_dataset *dataset);
struct iot_dataset *iot_dataset_find(hid_t id, struct iot_file **file);   /* open ones only */
/* The file closed: its datasets are no longer open (their ids may be reused). */
void iot_datasets_closed_with(const struct iot_file *file);
void iot_datasets_free_all(void);
