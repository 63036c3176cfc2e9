/* The HDF5 side of a kernel run: a file shared by the ranks of a communicator through the
 * MPI-IO driver, datasets written as the layout says, synced to storage, closed. Every
 * function is collective over that communicator; on failure it returns -1 with a message
 * naming the file or dataset. */
#ifndef IOTWIN_H5OUTPUT_H
#define IOTWIN_H5OUTPUT_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>

#include "held_blocks.h"
#include "layout.h"

typedef struct {
    hid_t file;
    hid_t dxpl;
    const char *path;  /* not copied: must outlive the h5_output */
    MPI_Comm comm;
    int rank;          /* rank in comm: the writer of the datasets' decompositions */
    int independent;
} h5_output;

/* Whether this HDF5 has a multi-dataset write (H5Dwrite_multi, HDF5 >= 1.14). */
int h5_has_multi_write(void);

/* Creates (truncating) or, with create == 0, opens for writing the file at path. */
int h5_output_open(h5_output *o, const char *path, MPI_Comm comm, int create, int independent,
                   char *err, size_t errlen);
/* The transfer mode of the writes that follow. */
void h5_output_set_transfer(h5_output *o, int independent);
/* Creates and writes every dataset of the layout, in order (one call when l->one_call). */
int h5_output_write(h5_output *o, const layout *l, char *err, size_t errlen);
/* Creates dataset k of the write order (k sets its values, pattern.h) and writes this rank's
 * block, in calls of at most ds->access_elements elements. */
int h5_output_write_dataset(h5_output *o, const dataset_spec *ds, uint64_t k, char *err,
                            size_t errlen);
/* Creates the dataset and writes the block the rank holds in one call: the file selection its
 * place in the dataset, the memory selection the block inside its halo. */
int h5_output_write_held(h5_output *o, const dataset_spec *ds, const held_block *b, char *err,
                         size_t errlen);
/* Gets the file's data to storage: H5Fflush(H5F_SCOPE_GLOBAL), which in the MPI-IO driver ends
 * in MPI_File_sync (ROMIO: fsync on every rank that has the file open). */
int h5_output_sync(h5_output *o, char *err, size_t errlen);
int h5_output_close(h5_output *o, char *err, size_t errlen);

#endif
