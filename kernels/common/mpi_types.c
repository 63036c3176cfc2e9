#include "mpi_types.h"

#include <stdint.h>

MPI_Datatype mpi_element(element_type type)
{
    switch (type) {
    case ELEM_FLOAT32:
        return MPI_FLOAT;
    case ELEM_FLOAT64:
        return MPI_DOUBLE;
    case ELEM_INT32:
        return MPI_INT32_T;
    case ELEM_UINT8:
        return MPI_UINT8_T;
    case ELEM_UINT16:
        return MPI_UINT16_T;
    }
    return MPI_DATATYPE_NULL;
}

int held_block_fits_subarray(const held_block *b)
{
    for (int a = 0; a < b->ndims; a++)
        if (b->dims[a] > (uint64_t)INT32_MAX || b->held[a] > (uint64_t)INT32_MAX)
            return 0;
    return 1;
}

int held_block_memory_type(const held_block *b, MPI_Datatype element, MPI_Datatype *type)
{
    int held[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS], inner[DECOMP_MAX_DIMS];
    for (int a = 0; a < b->ndims; a++) {
        held[a] = (int)b->held[a];
        count[a] = (int)b->count[a];
        inner[a] = (int)b->halo;
    }
    int rc = MPI_Type_create_subarray(b->ndims, held, count, inner, MPI_ORDER_C, element, type);
    return rc == MPI_SUCCESS ? MPI_Type_commit(type) : rc;
}
