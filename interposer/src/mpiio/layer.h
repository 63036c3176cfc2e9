/* The MPI-IO layer in the layers' table (core/layer.h), and its files by their handle. */
#pragma once
#include <mpi.h>

#include "core/records.h"

extern const struct iot_layer iot_mpiio_layer;

/* The MPI library's functions behind the hooks looked up (mpiio/hooks.c): at the runtime's
 * start, which MPI_Init makes, so that a program's first file session does not pay it. */
void iot_mpiio_bind(void);

/* The file of the open MPI file `fh` whose MPI-IO calls the program makes itself (NULL:
 * none): the MPI-IO layer's, or a carried layer's (below). */
struct iot_file *iot_file_of_mpi(MPI_File fh);

/* A layer above whose data calls are not hooked (PnetCDF's ncmpi_put_*): the MPI-IO calls
 * they make on its files' handles (file->fh) reach the MPI-IO hooks as the program's, and are
 * counted and captured in its file as in an MPI-IO file. Its files then hold the MPI-IO
 * layer's file state: its file_free calls iot_mpiio_file_release. */
void iot_mpiio_carry(const struct iot_layer *layer);
/* The MPI-IO layer's entries of the table, for a carried layer's files: the record as an
 * MPI-IO file's (driver "mpiio", collective), what the layer attached to it (its capture)
 * freed, its report members (no HDF5, the program's reads). */
void *iot_mpiio_file_new(struct iot_file *file);
void iot_mpiio_file_release(struct iot_file *file);
struct buf;
void iot_mpiio_report_file(struct buf *out, const struct iot_file *file);
