#include "pattern.h"

static void store(void *buf, element_type type, uint64_t at, uint32_t value)
{
    switch (type) {
    case ELEM_FLOAT32:
        ((float *)buf)[at] = (float)value;
        break;
    case ELEM_FLOAT64:
        ((double *)buf)[at] = (double)value;
        break;
    case ELEM_INT32:
        ((int32_t *)buf)[at] = (int32_t)value;
        break;
    case ELEM_UINT8:
        ((uint8_t *)buf)[at] = (uint8_t)value;
        break;
    case ELEM_UINT16:
        ((uint16_t *)buf)[at] = (uint16_t)value;
        break;
    }
}

/* Halo cells hold a value the pattern never takes, so a halo written to the file is seen. */
static void fill_halo(void *buf, element_type type, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        switch (type) {
        case ELEM_FLOAT32:
            ((float *)buf)[i] = -1.0f;
            break;
        case ELEM_FLOAT64:
            ((double *)buf)[i] = -1.0;
            break;
        case ELEM_INT32:
            ((int32_t *)buf)[i] = -1;
            break;
        case ELEM_UINT8:
        case ELEM_UINT16:
            store(buf, type, i, UINT32_MAX);
            break;
        }
}

void pattern_fill_haloed(void *buf, element_type type, uint64_t k, int ndims,
                         const uint64_t dims[], const uint64_t start[], const uint64_t count[],
                         uint64_t halo)
{
    uint64_t rows = 1, row_len = count[ndims - 1], held = 1;
    for (int a = 0; a < ndims; a++)
        held *= count[a] + 2 * halo;
    for (int a = 0; a < ndims - 1; a++)
        rows *= count[a];
    if (halo)
        fill_halo(buf, type, held);
    uint64_t base = (k * PATTERN_DATASET_STRIDE) % PATTERN_MODULUS;
    for (uint64_t r = 0; r < rows; r++) {
        /* the row's first element: unravel r within the block, then ravel in the whole
         * dataset (global) and in the held block (at, past the halo) */
        uint64_t rest = r, global = start[ndims - 1], stride = dims[ndims - 1];
        uint64_t at = halo, held_stride = count[ndims - 1] + 2 * halo;
        for (int a = ndims - 2; a >= 0; a--) {
            uint64_t i = rest % count[a];
            global += (start[a] + i) * stride;
            at += (i + halo) * held_stride;
            rest /= count[a];
            stride *= dims[a];
            held_stride *= count[a] + 2 * halo;
        }
        for (uint64_t i = 0; i < row_len; i++)
            store(buf, type, at + i, (uint32_t)((base + global + i) % PATTERN_MODULUS));
    }
}

void pattern_fill(void *buf, element_type type, uint64_t k, int ndims, const uint64_t dims[],
                  const uint64_t start[], const uint64_t count[])
{
    pattern_fill_haloed(buf, type, k, ndims, dims, start, count, 0);
}
