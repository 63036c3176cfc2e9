/* The MPI-IO layer's state of a file it opened itself (not one HDF5 opened): what the capture
 * needs (mpiio/capture.c). */
#pragma once

struct iot_mpiio_file;

void iot_mpiio_file_free(struct iot_mpiio_file *state);
