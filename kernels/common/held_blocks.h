/* What an application holds in memory before it writes: this rank's block of every dataset of a
 * layout, with the dataset's halo around it, filled with the value pattern (pattern.h). Made
 * before the timed phases, so a run times the writes alone, as an application's checkpoint
 * does. */
#ifndef IOTWIN_HELD_BLOCKS_H
#define IOTWIN_HELD_BLOCKS_H

#include <stdint.h>

#include "layout.h"

typedef struct {
    void *values;                     /* extents held[a], row-major */
    int ndims;
    uint64_t dims[DECOMP_MAX_DIMS];   /* the whole dataset */
    uint64_t start[DECOMP_MAX_DIMS];  /* the block in the dataset */
    uint64_t count[DECOMP_MAX_DIMS];
    uint64_t held[DECOMP_MAX_DIMS];   /* count[a] + 2 * halo */
    uint64_t halo;
} held_block;

typedef struct {
    held_block *blocks;  /* one per dataset of the layout, in its order */
    size_t count;
} held_blocks;

/* The blocks writer `rank` holds; -1 when out of memory (nothing left allocated). */
int held_blocks_make(held_blocks *h, const layout *l, uint64_t rank);
void held_blocks_free(held_blocks *h);
uint64_t held_block_elements(const held_block *b);  /* of the block, without its halo */
/* Copies the block without its halo into `out` (held_block_elements elements, row-major), for
 * a library that takes only contiguous memory. */
void held_block_copy_inner(const held_block *b, size_t element_bytes, void *out);

#endif
