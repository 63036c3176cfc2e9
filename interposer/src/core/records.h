/* What the interposer remembers about each file and dataset between open and the report. */
#pragma once
#include <hdf5.h>
#include <mpi.h>

#include "core/config.h"
#include "core/json.h"

#define IOT_MATCHED_LEN 512

/* A dataset's creation properties as HDF5 applied them. */
struct iot_creation {
    H5D_layout_t layout;
    int chunk_rank;           /* -1: not chunked */
    hsize_t chunk[H5S_MAX_RANK];
    H5D_fill_time_t fill;
    H5D_alloc_time_t alloc;
    H5D_fill_value_t fill_value;  /* user-defined, default or undefined: decides ifset's fill */
};

/* The file access properties the settings can set, as a list holds them. */
struct iot_access {
    hsize_t threshold, boundary;   /* alignment */
    hsize_t meta_block;
    size_t sieve;
    hbool_t coll_write, coll_ops;  /* collective metadata (MPI-IO lists only) */
};

/* The config's settings for a dataset and the labels of the blocks they come from: one per
 * distinct set of blocks, shared by every dataset those blocks apply to (core/runtime.c). */
struct iot_resolved {
    char matched[IOT_MATCHED_LEN];
    struct iot_settings settings;
    int exact;                /* `matched` names the blocks (not cut at IOT_MATCHED_LEN) */
};

struct iot_dataset {
    hid_t id;                 /* the application's id while open; -1 after H5Dclose */
    char *name;               /* full path in the file */
    const struct iot_resolved *resolved;
    hid_t dxpl;               /* transfer list used for the application's H5P_DEFAULT writes */
    int transfer_set;         /* the settings' transfer mode was set on its writes' lists */
    long long calls, bytes;
    double seconds;
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

/* The layer a file is written through. */
enum iot_api { IOT_API_HDF5, IOT_API_MPIIO };

struct iot_mpiio_file;        /* the MPI-IO layer's own state of a file (mpiio/) */

struct iot_file {
    enum iot_api api;
    hid_t id;                 /* HDF5's file id (-1 for an MPI-IO file) */
    MPI_File fh;              /* the open MPI file (MPI_FILE_NULL: none) */
    char *name;               /* as the application passed it */
    const char *how;          /* "create" or "open" */
    char matched[IOT_MATCHED_LEN];
    struct iot_settings settings;
    int mpio;                 /* opened with the MPI-IO driver */
    const char *driver;       /* HDF5's file driver, "mpio", "sec2", "core" or "other"; "mpiio"
                               * for a file the program writes through MPI-IO itself */
    struct iot_access access; /* as the file holds them (read back after the open) */
    MPI_Comm comm;            /* a duplicate of the file's communicator (MPI_COMM_NULL: none, or
                               * one process): the report's and the capture's, from core/comms */
    MPI_Info requested;       /* the hints the interposer set (MPI_INFO_NULL if none) */
    char fs_type[32];
    double open_s, write_s, flush_s, close_s, read_s;
    double t_open, t_close;   /* epoch seconds: open called, close returned (earliest, latest rank) */
    long long bytes, writes;
    long long read_bytes, reads;   /* the program's MPI-IO reads (not HDF5's H5Dread) */
    char *applied;            /* JSON object */
    char *effective;          /* JSON object, read back after open */
    struct iot_list not_effective;
    struct iot_dataset **datasets;
    int ndatasets;
    struct iot_capture *capture;   /* NULL: capture off */
    struct iot_mpiio_file *mpiio;  /* the MPI-IO layer's (NULL for HDF5's files) */
};

struct iot_file *iot_file_new(enum iot_api api, hid_t id, const char *name, const char *how);
struct iot_file *iot_file_find(hid_t id);   /* an HDF5 file by its id */
struct iot_file *iot_file_of_mpi(MPI_File fh);   /* an MPI-IO layer's file by its handle */
/* Another open HDF5 file of the same name as `file` (NULL: none). */
const struct iot_file *iot_file_open_as(const struct iot_file *file);
void iot_file_forget(struct iot_file *file);   /* removes and frees it */
void iot_file_detach(struct iot_file *file);   /* removes it from the open files (lookups) */
void iot_file_free(struct iot_file *file);     /* frees a detached file */

/* A dataset's record; id >= 0 registers it as open (as iot_dataset_opened). */
struct iot_dataset *iot_dataset_new(struct iot_file *file, hid_t id, const char *name);
void iot_dataset_opened(struct iot_file *file, struct iot_dataset *dataset, hid_t id);
void iot_dataset_closed(struct iot_dataset *dataset);
struct iot_dataset *iot_dataset_find(hid_t id, struct iot_file **file);   /* open ones only */
void iot_records_free_all(void);

/* One entry of a record's `not_effective` list. */
void iot_not_effective(struct iot_list *list, const char *key, const char *requested,
                       const char *effective, const char *reason);

const char *iot_layout_name(H5D_layout_t layout);           /* "contiguous", "chunked", ... */
const char *iot_fill_value_name(H5D_fill_value_t status);  /* "user", "default", "undefined" */
