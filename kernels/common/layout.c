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
    return type == ELEM_FLOAT64 ? 8 : 4;
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
