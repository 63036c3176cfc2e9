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

void pattern_fill(void *buf, element_type type, uint64_t k, int ndims, const uint64_t dims[],
                  const uint64_t start[], const uint64_t count[])
{
    uint64_t rows = 1, row_len = count[ndims - 1];
    for (int a = 0; a < ndims - 1; a++)
        rows *= count[a];
    uint64_t base = (k * PATTERN_DATASET_STRIDE) % PATTERN_MODULUS;
    for (uint64_t r = 0; r < rows; r++) {
        /* global index of the row's first element: unravel r within the block, then ravel */
        uint64_t rest = r, global = 0, stride = dims[ndims - 1];
        global = start[ndims - 1];
        for (int a = ndims - 2; a >= 0; a--) {
            global += (start[a] + rest % count[a]) * stride;
            rest /= count[a];
            stride *= dims[a];
        }
        for (uint64_t i = 0; i < row_len; i++)
            store(buf, type, r * row_len + i, (uint32_t)((base + global + i) % PATTERN_MODULUS));
    }
}
