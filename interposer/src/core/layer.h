/* The table through which core/ calls an I/O layer.
 *
 * core/ holds the run (config, settings, the report and its reduction) over generic file
 * records (core/records.h) and knows no I/O library by name. Each layer (hdf5/, mpiio/,
 * posix/, ...) fills one `struct iot_layer` in its own folder and registers it when the library
 * is loaded:
 *
 *     static const struct iot_layer posix_layer = {
 *         .api = "posix", .blocks = IOT_B_LUSTRE,
 *         .init = posix_init, .file_free = posix_file_free,
 *     };
 *     IOT_REGISTER_LAYER(posix_layer)
 *
 * Its hooks then make their files with iot_file_new(&posix_layer, name, how), find them with
 * iot_file_find(&posix_layer, match, key) and hand them to the report with iot_report_close.
 * Every entry may be NULL (nothing to do there); core/ calls them in the order the layers
 * registered. A layer that captures its files (capture/capture.h) frees the file's capture in
 * its file_free. A layer never includes another layer's headers unless it is built on it (HDF5
 * on MPI-IO), and core/ includes none. */
#pragma once
#include <mpi.h>

struct buf;
struct iot_file;
struct iot_part;

struct iot_layer {
    const char *api;          /* its files' "api" in the report: "hdf5", "mpiio", "posix" */

    /* capabilities */
    unsigned blocks;          /* the config blocks (IOT_B_*) whose keys can act on its files:
                               * only theirs are applied, the others' listed not effective
                               * (iot_not_applying) */

    /* once, at the runtime's start (the first hooked call of any layer) */
    void (*init)(void);
    /* a file's layer state (file->state): made by iot_file_new, freed with the record (with
     * whatever the layer attached to it, such as its capture) */
    void *(*file_new)(struct iot_file *file);
    void (*file_free)(struct iot_file *file);
    /* a part named by another rank's figures only (the reduction makes it on rank 0 and the
     * layer adds it to the file: iot_part_add), and a part's end; a layer whose files have
     * parts (HDF5's datasets: the report's "datasets") sets both */
    struct iot_part *(*part_new)(struct iot_file *file, const char *name);
    void (*part_free)(struct iot_part *part);
    /* the report line: members after "driver" (`, "hdf5_version": ...`), and a part's members
     * between its "name" and its "writes" (`, "matched": [...], ...`: its lists move into the
     * line) */
    void (*report_file)(struct buf *out, const struct iot_file *file);
    void (*report_part)(struct buf *out, struct iot_part *part);
    /* the run's record at its end: `run_sums` figures of this rank put by run_figures and
     * summed over the ranks in the run's one reduction (core/run.c), handed to run_reduce on
     * every rank (comm: the run's communicator, MPI_COMM_NULL when this process reports alone;
     * anything more it exchanges is collective over comm), then its members
     * (`, "outside": ...`) written by rank 0 */
    int run_sums;
    void (*run_figures)(long long *mine);
    void (*run_reduce)(MPI_Comm comm, const long long *sums);
    void (*run_report)(struct buf *out);
    /* at unload, before the records are freed */
    void (*shutdown)(void);
};

/* The keys set for `file` of the blocks its layer's settings cannot act on, each listed as not
 * effective, the reason naming the layer's api and the block (core/runtime.c). */
void iot_not_applying(struct iot_file *file);

/* Adds a layer to the table (from a constructor: IOT_REGISTER_LAYER); past the table's size
 * (core/layer.c), none is added. */
void iot_layer_register(const struct iot_layer *layer);
int iot_layer_count(void);
const struct iot_layer *iot_layer_at(int index);
/* Where layer `index`'s `run_sums` figures start among all layers' laid end to end in
 * registration order: the sum of the layers' before it (at iot_layer_count(), all of them). */
int iot_layer_sums_at(int index);

/* Registers `layer` (a `static const struct iot_layer`) when the library is loaded. */
#define IOT_REGISTER_LAYER(layer)                                                \
    __attribute__((constructor)) static void iot_register_##layer(void)          \
    {                                                                            \
        iot_layer_register(&(layer));                                            \
    }
