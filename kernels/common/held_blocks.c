#include "held_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "pattern.h"

uint64_t held_block_elements(const held_block *b)
{
    uint64_t n = 1;
    for (int a = 0; a < b->ndims; a++)
        n *= b->count[a];
    return n;
}

void held_block_copy_inner(const held_block *b, size_t element_bytes, void *out)
{
    uint64_t rows = 1, row = b->count[b->ndims - 1];
    for (int a = 0; a < b->ndims - 1; a++)
        rows *= b->count[a];
    if (row == 0)
        return;
    char *to = out;
    for (uint64_t r = 0; r < rows; r++) {
        /* the row's first held element: unravel r within the block, past the halo */
        uint64_t rest = r, at = b->halo, stride = b->held[b->ndims - 1];
        for (int a = b->ndims - 2; a >= 0; a--) {
            at += (rest % b->count[a] + b->halo) * stride;
            rest /= b->count[a];
            stride *= b->held[a];
        }
        memcpy(to, (const char *)b->values + at * element_bytes, row * element_bytes);
        to += row * element_bytes;
    }
}

static int hold(held_block *b, const dataset_spec *ds, uint64_t k, uint64_t rank)
{
    uint64_t elements = 1;
    b->ndims = ds->decomp.ndims;
    b->halo = ds->halo;
    decomp_dims(&ds->decomp, b->dims);
    decomp_block(&ds->decomp, rank, b->start, b->count);
    for (int a = 0; a < b->ndims; a++) {
        b->held[a] = b->count[a] + 2 * b->halo;
        elements *= b->held[a];
    }
    b->values = malloc(elements ? elements * element_bytes(ds->type) : 1);
    if (!b->values)
        return -1;
    pattern_fill_haloed(b->values, ds->type, k, b->ndims, b->dims, b->start, b->count, b->halo);
    return 0;
}

int held_blocks_make(held_blocks *h, const layout *l, uint64_t rank)
{
    h->count = 0;
    h->blocks = calloc(l->count ? l->count : 1, sizeof *h->blocks);
    if (!h->blocks)
        return -1;
    for (; h->count < l->count; h->count++)
        if (hold(&h->blocks[h->count], &l->datasets[h->count], h->count, rank)) {
            held_blocks_free(h);
            return -1;
        }
    return 0;
}

void held_blocks_free(held_blocks *h)
{
    for (size_t i = 0; i < h->count; i++)
        free(h->blocks[i].values);
    free(h->blocks);
    h->blocks = NULL;
    h->count = 0;
}
