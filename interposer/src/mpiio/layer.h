/* The MPI-IO layer in the layers' table (core/layer.h), and its files by their handle. */
#pragma once
#include <mpi.h>

#include "core/records.h"

extern const struct iot_layer iot_mpiio_layer;

/* The MPI-IO layer's file of the open MPI file `fh` (NULL: none). */
struct iot_file *iot_file_of_mpi(MPI_File fh);
