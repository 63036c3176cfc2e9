/* What a kernel writes: its datasets in write order, each with its element type, its split
 * among the ranks and its storage layout. The kernel files build one; the common code writes
 * it (kernel_run) or describes it (workload_print), so the two cannot disagree. */
#ifndef IOTWIN_LAYOUT_H
#define IOTWIN_LAYOUT_H

#include <stddef.h>

#include "decomposition.h"

typedef enum { ELEM_FLOAT32, ELEM_FLOAT64, ELEM_INT32, ELEM_UINT8, ELEM_UINT16 } element_type;

typedef struct {
    char name[128];            /* full path, e.g. /Step#0/x */
    element_type type;
    decomposition decomp;      /* writer w = rank w */
    int chunked;
    uint64_t chunk[DECOMP_MAX_DIMS];
    uint64_t access_elements;  /* > 0: each rank writes its block in calls of at most this many
                                * elements (WORKLOAD.md, access_elements); 0: one call */
    uint64_t halo;             /* the block is held in memory with this many cells around it on
                                * every axis (a stencil code's ghost cells), not written */
} dataset_spec;

typedef struct {
    dataset_spec *datasets;
    size_t count, capacity;
    int one_call; /* all datasets written by one multi-dataset call */
} layout;

/* Appends a dataset (contiguous, no decomposition yet); NULL when out of memory. */
dataset_spec *layout_add(layout *l, element_type type, const char *name_format, ...)
    __attribute__((format(printf, 3, 4)));
void layout_free(layout *l);
size_t element_bytes(element_type type);
/* The element type the workload format means by an element size: 1 and 2 bytes unsigned
 * integers, 4 and 8 bytes floats; -1 for any other size. */
int element_type_of_size(uint64_t bytes, element_type *type);
uint64_t dataset_elements(const dataset_spec *d);
uint64_t layout_bytes(const layout *l);

#endif
