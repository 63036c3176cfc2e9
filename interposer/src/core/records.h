/* What the interposer remembers about each file between its open and its report, whatever
 * layer writes it (core/layer.h): the generic record core/ reports and reduces; each layer
 * keeps its own state of the file in `state`. */
#pragma once
#include <mpi.h>

#include "core/config.h"
#include "core/json.h"

#define IOT_MATCHED_LEN 512

struct iot_layer;
struct iot_capture;
struct iot_group;

/* The config's settings for a part of a file and the labels of the blocks they come from: one
 * per distinct set of blocks, shared by every part those blocks apply to (core/runtime.c). */
struct iot_resolved {
    char matched[IOT_MATCHED_LEN];
    struct iot_settings settings;
    int exact;                /* `matched` names the blocks (not cut at IOT_MATCHED_LEN) */
};

/* A named part of a file with figures of its own, summed over the ranks (HDF5's datasets).
 * A layer's part record begins with one. */
struct iot_part {
    char *name;               /* full path in the file */
    long long calls, bytes;   /* writes */
    double seconds;
};

struct iot_file {
    const struct iot_layer *layer;   /* the layer the program writes it through */
    void *state;              /* the layer's own (its file_new's) */
    MPI_File fh;              /* the open MPI file under it (MPI_FILE_NULL: none) */
    MPI_File fh_alone;        /* the same file opened again by this process alone, under it
                               * (PnetCDF's independent data mode), or MPI_FILE_NULL */
    char *name;               /* as the application passed it */
    const char *how;          /* "create" or "open" */
    char matched[IOT_MATCHED_LEN];
    struct iot_settings settings;
    int collective;           /* opened collectively by the ranks of its communicator */
    const char *driver;       /* the layer's driver of the file, as the report names it */
    MPI_Comm comm;            /* a duplicate of the file's communicator (MPI_COMM_NULL: none, or
                               * one process): the capture's and a Lustre layout's, from
                               * core/comms */
    struct iot_group *group;  /* the processes that opened it (NULL: this process alone, or no
                               * report): its report's reduction at MPI_Finalize */
    MPI_Info requested;       /* the hints the interposer set (MPI_INFO_NULL if none) */
    char fs_type[32];
    double open_s, write_s, flush_s, close_s, read_s;
    double metadata_s;        /* in dataset creates and closes (HDF5 metadata, a fill at
                               * allocation): I/O time, not the program's computation */
    double t_open, t_close;   /* epoch seconds: open called, close returned (earliest, latest rank) */
    long long bytes, writes;
    long long read_bytes, reads;   /* where the layer counts reads (its report says so) */
    char *applied;            /* JSON object */
    char *effective;          /* JSON object, read back after open */
    struct iot_list not_effective;
    struct iot_part **parts;
    int nparts;
    struct iot_capture *capture;   /* the capture's (capture/): NULL, capture off */
};

struct iot_file *iot_file_new(const struct iot_layer *layer, const char *name, const char *how);
/* The first open file of `layer` that `match` accepts for `key`. */
typedef int (*iot_file_match)(const struct iot_file *file, const void *key);
struct iot_file *iot_file_find(const struct iot_layer *layer, iot_file_match match,
                               const void *key);
void iot_file_forget(struct iot_file *file);   /* removes and frees it */
void iot_file_detach(struct iot_file *file);   /* removes it from the open files (lookups) */
void iot_file_free(struct iot_file *file);     /* frees a detached file */
void iot_records_free_all(void);

/* Appends a part (its layer's record, which begins with it) to the file's. */
void iot_part_add(struct iot_file *file, struct iot_part *part);

/* One entry of a record's `not_effective` list. */
void iot_not_effective(struct iot_list *list, const char *key, const char *requested,
                       const char *effective, const char *reason);
