/* The MPI datatypes a held block is written with, by every output that hands MPI a datatype
 * (bare MPI-IO, PnetCDF's flexible API): its element, and the block inside its halo as a
 * subarray of the memory it is held in, so that the halo is skipped without a copy. */
#ifndef IOTWIN_MPI_TYPES_H
#define IOTWIN_MPI_TYPES_H

#include <mpi.h>

#include "held_blocks.h"

MPI_Datatype mpi_element(element_type type);
/* 1 if the block and its dataset fit MPI_Type_create_subarray, which takes extents as int. */
int held_block_fits_subarray(const held_block *b);
/* The block inside its halo (a subarray of the held extents), committed; free it with
 * MPI_Type_free. An MPI error code, MPI_SUCCESS when made. */
int held_block_memory_type(const held_block *b, MPI_Datatype element, MPI_Datatype *type);

#endif
