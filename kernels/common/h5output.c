#include "h5output.h"

#include <stdio.h>
#include <stdlib.h>

#include "pattern.h"

int h5_has_multi_write(void)
{
#if H5_VERSION_GE(1, 14, 0)
    return 1;
#else
    return 0;
#endif
}

static hid_t native_type(element_type type)
{
    switch (type) {
    case ELEM_FLOAT32:
        return H5T_NATIVE_FLOAT;
    case ELEM_FLOAT64:
        return H5T_NATIVE_DOUBLE;
    case ELEM_INT32:
        return H5T_NATIVE_INT32;
    }
    return H5I_INVALID_HID;
}

int h5_output_create(h5_output *o, const char *path, int independent, char *err, size_t errlen)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    o->path = path;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    o->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    o->dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(o->dxpl, independent ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
    if (o->file < 0) {
        H5Pclose(o->dxpl);
        snprintf(err, errlen, "cannot create HDF5 file '%s'", path);
        return -1;
    }
    return 0;
}

/* One rank's part of a dataset: the file selection, the memory space and the values. */
typedef struct {
    hid_t dataset, file_space, mem_space, type;
    void *values;
} dataset_part;

static void part_close(dataset_part *p)
{
    if (p->mem_space >= 0)
        H5Sclose(p->mem_space);
    if (p->file_space >= 0)
        H5Sclose(p->file_space);
    if (p->dataset >= 0)
        H5Dclose(p->dataset);
    free(p->values);
}

static hid_t create_dataset(hid_t file, const dataset_spec *ds, hid_t type, hid_t space)
{
    hsize_t chunk[DECOMP_MAX_DIMS];
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (ds->chunked) {
        for (int a = 0; a < ds->decomp.ndims; a++)
            chunk[a] = ds->chunk[a];
        H5Pset_chunk(dcpl, ds->decomp.ndims, chunk);
    }
    hid_t dataset = H5Dcreate2(file, ds->name, type, space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Pclose(lcpl);
    return dataset;
}

/* Creates dataset k and prepares this rank's block of it. */
static int part_open(dataset_part *p, const h5_output *o, const dataset_spec *ds, uint64_t k)
{
    uint64_t dims[DECOMP_MAX_DIMS], start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
    hsize_t hdims[DECOMP_MAX_DIMS], hstart[DECOMP_MAX_DIMS], hcount[DECOMP_MAX_DIMS];
    int n = ds->decomp.ndims;
    uint64_t elements = decomp_block_elements(&ds->decomp, (uint64_t)o->rank);
    decomp_dims(&ds->decomp, dims);
    decomp_block(&ds->decomp, (uint64_t)o->rank, start, count);
    for (int a = 0; a < n; a++) {
        hdims[a] = dims[a];
        hstart[a] = start[a];
        hcount[a] = count[a];
    }
    p->type = native_type(ds->type);
    p->mem_space = p->dataset = H5I_INVALID_HID;
    p->file_space = H5Screate_simple(n, hdims, NULL);
    p->values = malloc(elements ? elements * element_bytes(ds->type) : 1);
    if (p->file_space < 0 || !p->values)
        return -1;
    p->dataset = create_dataset(o->file, ds, p->type, p->file_space);
    p->mem_space = H5Screate_simple(n, hcount, NULL);
    if (p->dataset < 0 || p->mem_space < 0)
        return -1;
    if (elements == 0)
        H5Sselect_none(p->file_space);
    else if (H5Sselect_hyperslab(p->file_space, H5S_SELECT_SET, hstart, NULL, hcount, NULL) < 0)
        return -1;
    pattern_fill(p->values, ds->type, k, n, dims, start, count);
    return 0;
}

static int write_one_by_one(h5_output *o, const layout *l, char *err, size_t errlen)
{
    for (size_t k = 0; k < l->count; k++) {
        dataset_part p;
        int failed = part_open(&p, o, &l->datasets[k], k) ||
                     H5Dwrite(p.dataset, p.type, p.mem_space, p.file_space, o->dxpl, p.values) < 0;
        part_close(&p);
        if (failed) {
            snprintf(err, errlen, "cannot write dataset '%s' of '%s'", l->datasets[k].name,
                     o->path);
            return -1;
        }
    }
    return 0;
}

#if H5_VERSION_GE(1, 14, 0)
static int write_in_one_call(h5_output *o, const layout *l, char *err, size_t errlen)
{
    size_t n = l->count;
    dataset_part *parts = calloc(n, sizeof *parts);
    hid_t *ids = malloc(4 * n * sizeof *ids);
    const void **values = malloc(n * sizeof *values);
    int failed = !parts || !ids || !values;
    size_t opened = 0;
    for (; !failed && opened < n; opened++) {
        failed = part_open(&parts[opened], o, &l->datasets[opened], opened);
        ids[opened] = parts[opened].dataset;
        ids[n + opened] = parts[opened].type;
        ids[2 * n + opened] = parts[opened].mem_space;
        ids[3 * n + opened] = parts[opened].file_space;
        values[opened] = parts[opened].values;
    }
    if (!failed)
        failed = H5Dwrite_multi(n, ids, ids + n, ids + 2 * n, ids + 3 * n, o->dxpl, values) < 0;
    for (size_t k = 0; k < opened; k++)
        part_close(&parts[k]);
    free(parts);
    free(ids);
    free(values);
    if (failed)
        snprintf(err, errlen, "cannot write the %zu datasets of '%s' in one call", n, o->path);
    return failed ? -1 : 0;
}
#endif

int h5_output_write(h5_output *o, const layout *l, char *err, size_t errlen)
{
#if H5_VERSION_GE(1, 14, 0)
    if (l->one_call)
        return write_in_one_call(o, l, err, errlen);
#endif
    return write_one_by_one(o, l, err, errlen);
}

int h5_output_sync(h5_output *o, char *err, size_t errlen)
{
    if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) >= 0)
        return 0;
    snprintf(err, errlen, "cannot flush '%s' to storage", o->path);
    return -1;
}

int h5_output_close(h5_output *o, char *err, size_t errlen)
{
    H5Pclose(o->dxpl);
    if (H5Fclose(o->file) >= 0)
        return 0;
    snprintf(err, errlen, "cannot close '%s'", o->path);
    return -1;
}
