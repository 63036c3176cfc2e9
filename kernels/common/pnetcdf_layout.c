#include "pnetcdf_layout.h"

#include <stdio.h>
#include <string.h>

#include "nc4_layout.h"

/* CDF-5's field sizes: a tag and a type are 4 bytes, a count, a length, a size or an offset
 * 8, a name its length in 8 bytes and its characters padded to 4. */
#define TAG 4
#define COUNT 8
#define ABSENT_LIST (TAG + COUNT)

/* PnetCDF 1.12's defaults (nc_header_align_size, nc_var_align_size) and the format's own
 * padding of a variable's size. */
#define HEADER_ALIGN 512
#define VAR_ALIGN 4

static uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

static uint64_t name_bytes(const char *name)
{
    return COUNT + round_up(strlen(name), 4);
}

uint64_t pnetcdf_header_bytes(const layout *l, char *err, size_t errlen)
{
    nc4_dimensions dims;
    if (nc4_dimensions_of(l, &dims, NULL, err, errlen))
        return 0;
    uint64_t bytes = TAG + COUNT;                    /* "CDF" 5, the record count */
    bytes += ABSENT_LIST;                            /* the dimension list's tag and count */
    for (int i = 0; i < dims.count; i++)
        bytes += name_bytes(dims.dims[i].name) + COUNT;
    bytes += ABSENT_LIST;                            /* no global attribute */
    bytes += ABSENT_LIST;                            /* the variable list's tag and count */
    for (size_t k = 0; k < l->count; k++) {
        const dataset_spec *ds = &l->datasets[k];
        bytes += name_bytes(ds->name + 1) + COUNT + COUNT * (uint64_t)ds->decomp.ndims;
        bytes += ABSENT_LIST + TAG + COUNT + COUNT;  /* no attribute, type, size, begin */
    }
    return bytes;
}

/* `bytes` bytes at `offset`: written whole by writer 0 (the header), or never (padding). */
static int add_bytes(layout *out, uint64_t offset, uint64_t bytes, int header)
{
    uint64_t one = 1;
    dataset_spec *d = layout_add(out, ELEM_UINT8, "bytes@%llu", (unsigned long long)offset);
    if (!d || decomp_init_uniform(&d->decomp, 1, &one, &bytes))
        return -1;
    d->first_writer_only = header;
    d->created_only = !header;
    return 0;
}

int pnetcdf_file_layout(const layout *l, layout *out, char *err, size_t errlen)
{
    uint64_t header = pnetcdf_header_bytes(l, err, errlen);
    if (!header)
        return -1;
    *err = '\0';
    if (add_bytes(out, 0, header, 1))
        return -1;
    uint64_t end = header, begin = round_up(round_up(header, HEADER_ALIGN), VAR_ALIGN);
    for (size_t k = 0; k < l->count; k++) {
        if (begin > end && add_bytes(out, end, begin - end, 0))
            return -1;
        if (!layout_copy(out, &l->datasets[k]))
            return -1;
        end = begin + dataset_elements(&l->datasets[k]) * element_bytes(l->datasets[k].type);
        begin = round_up(end, VAR_ALIGN);
    }
    return 0;
}
