#include "layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dataset_spec *layout_add(layout *l, element_type type, const char *name_format, ...)
{
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 16;
        dataset_spec *grown = realloc(l->datasets, capacity * sizeof *grown);
        if (!grown)
            return NULL;
        l->datasets = grown;
        l->capacity = capacity;
    }
    dataset_spec *d = &l->datasets[l->count++];
    memset(d, 0, sizeof *d);
    d->type = type;
    va_list ap;
    va_start(ap, name_format);
    vsnprintf(d->name, sizeof d->name, name_format, ap);
    va_end(ap);
    return d;
}

void layout_free(layout *l)
{
    for (size_t i = 0; i < l->count; i++)
        decomp_free(&l->datasets[i].decomp);
    free(l->datasets);
    memset(l, 0, sizeof *l);
}

size_t element_bytes(element_type type)
{
    switch (type) {
    case ELEM_UINT8:
        return 1;
    case ELEM_UINT16:
        return 2;
    case ELEM_FLOAT32:
    case ELEM_INT32:
        return 4;
    case ELEM_FLOAT64:
        return 8;
    }
    return 0;
}

int element_type_of_size(uint64_t bytes, element_type *type)
{
    static const element_type by_size[] = {ELEM_UINT8, ELEM_UINT16, ELEM_FLOAT32, ELEM_FLOAT64};
    for (size_t i = 0; i < sizeof by_size / sizeof by_size[0]; i++)
        if (element_bytes(by_size[i]) == bytes) {
            *type = by_size[i];
            return 0;
        }
    return -1;
}

uint64_t dataset_elements(const dataset_spec *d)
{
    uint64_t dims[DECOMP_MAX_DIMS], n = 1;
    decomp_dims(&d->decomp, dims);
    for (int a = 0; a < d->decomp.ndims; a++)
        n *= dims[a];
    return n;
}

uint64_t layout_bytes(const layout *l)
{
    uint64_t total = 0;
    for (size_t i = 0; i < l->count; i++)
        total += dataset_elements(&l->datasets[i]) * element_bytes(l->datasets[i].type);
    return total;
}
