/* The values the kernels write, so that a reader can check every element without a copy:
 * element g (row-major index in the whole dataset) of the k-th dataset in write order holds
 *     (k * 1000003 + g) mod 2^23
 * which float32, float64 and int32 represent exactly; uint8 and uint16 elements hold it
 * modulo 2^8 and 2^16. */
#ifndef IOTWIN_PATTERN_H
#define IOTWIN_PATTERN_H

#include <stdint.h>

#include "layout.h"

#define PATTERN_DATASET_STRIDE 1000003u
#define PATTERN_MODULUS (1u << 23)

/* Fills buf with the values of the block (start, count) of dataset k whose global dims are dims. */
void pattern_fill(void *buf, element_type type, uint64_t k, int ndims, const uint64_t dims[],
                  const uint64_t start[], const uint64_t count[]);
/* The same block held in memory with `halo` cells on each side of every axis (extents
 * count[a] + 2 * halo, row-major), as a stencil code holds it: the block's values inside, and
 * in the halo -1 for floats and int32, which the pattern never takes (uint8 and uint16 have no
 * such value: their largest). */
void pattern_fill_haloed(void *buf, element_type type, uint64_t k, int ndims,
                         const uint64_t dims[], const uint64_t start[], const uint64_t count[],
                         uint64_t halo);

#endif
