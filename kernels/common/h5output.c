#include "h5output.h"

#include <stdio.h>
#include <stdlib.h>

#include "output.h"
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
    case ELEM_UINT8:
        return H5T_NATIVE_UINT8;
    case ELEM_UINT16:
        return H5T_NATIVE_UINT16;
    }
    return H5I_INVALID_HID;
}

int h5_output_open(h5_output *o, const char *path, MPI_Comm comm, int create, int independent,
                   char *err, size_t errlen)
{
    MPI_Comm_rank(comm, &o->rank);
    o->path = path;
    o->comm = comm;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    o->file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                     : H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    if (o->file < 0) {
        snprintf(err, errlen, "cannot %s HDF5 file '%s'", create ? "create" : "open", path);
        return -1;
    }
    o->dxpl = H5Pcreate(H5P_DATASET_XFER);
    h5_output_set_transfer(o, independent);
    return 0;
}

void h5_output_set_transfer(h5_output *o, int independent)
{
    o->independent = independent;
    H5Pset_dxpl_mpio(o->dxpl, independent ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
}

/* One rank's part of a dataset: its block, and the selection, memory space and values of the
 * rows of the block (axis 0) that one write call takes. */
typedef struct {
    hid_t dataset, file_space, mem_space, type;
    void *values;
    int ndims;
    uint64_t dims[DECOMP_MAX_DIMS], start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
} dataset_part;

static void part_release_call(dataset_part *p)
{
    if (p->mem_space >= 0)
        H5Sclose(p->mem_space);
    free(p->values);
    p->mem_space = H5I_INVALID_HID;
    p->values = NULL;
}

static void part_close(dataset_part *p)
{
    part_release_call(p);
    if (p->file_space >= 0)
        H5Sclose(p->file_space);
    if (p->dataset >= 0)
        H5Dclose(p->dataset);
}

static void to_hsize(int n, const uint64_t in[], hsize_t out[])
{
    for (int a = 0; a < n; a++)
        out[a] = in[a];
}

static hid_t create_dataset(hid_t file, const dataset_spec *ds, hid_t type, hid_t space)
{
    hsize_t chunk[DECOMP_MAX_DIMS];
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (ds->chunked) {
        to_hsize(ds->decomp.ndims, ds->chunk, chunk);
        H5Pset_chunk(dcpl, ds->decomp.ndims, chunk);
    }
    hid_t dataset = H5Dcreate2(file, ds->name, type, space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Pclose(lcpl);
    return dataset;
}

/* Creates the dataset and finds this rank's block of it. */
static int part_create(dataset_part *p, const h5_output *o, const dataset_spec *ds)
{
    hsize_t hdims[DECOMP_MAX_DIMS];
    p->ndims = ds->decomp.ndims;
    decomp_dims(&ds->decomp, p->dims);
    decomp_block(&ds->decomp, (uint64_t)o->rank, p->start, p->count);
    to_hsize(p->ndims, p->dims, hdims);
    p->type = native_type(ds->type);
    p->dataset = p->mem_space = H5I_INVALID_HID;
    p->values = NULL;
    p->file_space = H5Screate_simple(p->ndims, hdims, NULL);
    if (p->file_space < 0)
        return -1;
    p->dataset = create_dataset(o->file, ds, p->type, p->file_space);
    return p->dataset < 0 ? -1 : 0;
}

/* Selects `rows` rows of the block from row `first` on, with their values (dataset k). */
static int part_select(dataset_part *p, const dataset_spec *ds, uint64_t k, uint64_t first,
                       uint64_t rows)
{
    uint64_t start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS], elements = 1;
    hsize_t hstart[DECOMP_MAX_DIMS], hcount[DECOMP_MAX_DIMS];
    for (int a = 0; a < p->ndims; a++) {
        start[a] = p->start[a];
        count[a] = p->count[a];
    }
    start[0] += first;
    count[0] = rows;
    for (int a = 0; a < p->ndims; a++)
        elements *= count[a];
    to_hsize(p->ndims, start, hstart);
    to_hsize(p->ndims, count, hcount);
    part_release_call(p);
    p->mem_space = H5Screate_simple(p->ndims, hcount, NULL);
    p->values = malloc(elements ? elements * element_bytes(ds->type) : 1);
    if (p->mem_space < 0 || !p->values)
        return -1;
    if (elements == 0)
        H5Sselect_none(p->file_space);
    else if (H5Sselect_hyperslab(p->file_space, H5S_SELECT_SET, hstart, NULL, hcount, NULL) < 0)
        return -1;
    pattern_fill(p->values, ds->type, k, p->ndims, p->dims, start, count);
    return 0;
}

/* Selects the held block: its place in the dataset, and in memory the block inside its halo. */
static int part_select_held(dataset_part *p, const held_block *b)
{
    hsize_t held[DECOMP_MAX_DIMS], start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
    hsize_t inner[DECOMP_MAX_DIMS];
    to_hsize(p->ndims, b->held, held);
    to_hsize(p->ndims, b->start, start);
    to_hsize(p->ndims, b->count, count);
    for (int a = 0; a < p->ndims; a++)
        inner[a] = b->halo;
    part_release_call(p);
    p->mem_space = H5Screate_simple(p->ndims, held, NULL);
    if (p->mem_space < 0)
        return -1;
    if (held_block_elements(b) == 0)
        return H5Sselect_none(p->file_space) < 0 || H5Sselect_none(p->mem_space) < 0 ? -1 : 0;
    if (H5Sselect_hyperslab(p->file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
        return -1;
    return H5Sselect_hyperslab(p->mem_space, H5S_SELECT_SET, inner, NULL, count, NULL) < 0 ? -1
                                                                                           : 0;
}

/* Rows of the block per write call: the whole block, or as many as access_elements holds. */
static uint64_t rows_per_call(const dataset_part *p, uint64_t access_elements)
{
    uint64_t row = 1;
    for (int a = 1; a < p->ndims; a++)
        row *= p->count[a];
    if (!access_elements || !row)
        return p->count[0] ? p->count[0] : 1;
    return access_elements / row ? access_elements / row : 1;
}

/* A collective transfer needs every rank in every call: each makes as many as the rank that
 * needs the most, the others with empty selections. */
static uint64_t calls_needed(const h5_output *o, const dataset_part *p, uint64_t access_elements,
                             uint64_t rows_per)
{
    if (!access_elements)
        return 1;
    uint64_t mine = (p->count[0] + rows_per - 1) / rows_per, most = mine;
    if (!o->independent)
        MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, o->comm);
    return most;
}

/* part_create, saying what failed. */
static int part_create_named(dataset_part *p, const h5_output *o, const dataset_spec *ds,
                             char *err, size_t errlen)
{
    if (part_create(p, o, ds) == 0)
        return 0;
    part_close(p);
    snprintf(err, errlen, "cannot create dataset '%s' in '%s'", ds->name, o->path);
    return -1;
}

int h5_output_write_dataset(h5_output *o, const dataset_spec *ds, uint64_t k, char *err,
                            size_t errlen)
{
    dataset_part p;
    if (part_create_named(&p, o, ds, err, errlen))
        return -1;
    uint64_t rows_per = rows_per_call(&p, ds->access_elements);
    uint64_t ncalls = calls_needed(o, &p, ds->access_elements, rows_per);
    int failed = 0;
    for (uint64_t call = 0; call < ncalls && !failed; call++) {
        uint64_t first = call * rows_per, left = first < p.count[0] ? p.count[0] - first : 0;
        failed = part_select(&p, ds, k, first, left < rows_per ? left : rows_per) ||
                 H5Dwrite(p.dataset, p.type, p.mem_space, p.file_space, o->dxpl, p.values) < 0;
    }
    part_close(&p);
    if (failed)
        snprintf(err, errlen, "cannot write dataset '%s' of '%s'", ds->name, o->path);
    return failed ? -1 : 0;
}

int h5_output_write_held(h5_output *o, const dataset_spec *ds, const held_block *b, char *err,
                         size_t errlen)
{
    dataset_part p;
    if (part_create_named(&p, o, ds, err, errlen))
        return -1;
    int failed = part_select_held(&p, b) ||
                 H5Dwrite(p.dataset, p.type, p.mem_space, p.file_space, o->dxpl, b->values) < 0;
    part_close(&p);
    if (failed)
        snprintf(err, errlen, "cannot write dataset '%s' of '%s'", ds->name, o->path);
    return failed ? -1 : 0;
}

static int write_one_by_one(h5_output *o, const layout *l, char *err, size_t errlen)
{
    for (size_t k = 0; k < l->count; k++)
        if (h5_output_write_dataset(o, &l->datasets[k], k, err, errlen))
            return -1;
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
        dataset_part *p = &parts[opened];
        failed = part_create(p, o, &l->datasets[opened]) ||
                 part_select(p, &l->datasets[opened], opened, 0, p->count[0]);
        ids[opened] = p->dataset;
        ids[n + opened] = p->type;
        ids[2 * n + opened] = p->mem_space;
        ids[3 * n + opened] = p->file_space;
        values[opened] = p->values;
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

/* The output_ops of a kernel run (output.h): one file created over the communicator. */
static int ops_open(void **file, const char *path, MPI_Comm comm, int independent, char *err,
                    size_t errlen)
{
    h5_output *o = malloc(sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory opening '%s'", path);
        return -1;
    }
    if (h5_output_open(o, path, comm, 1, independent, err, errlen)) {
        free(o);
        return -1;
    }
    *file = o;
    return 0;
}

static int ops_write(void *file, const layout *l, const held_blocks *held, char *err,
                     size_t errlen)
{
    (void)held;
    return h5_output_write(file, l, err, errlen);
}

static int ops_write_held(void *file, const layout *l, const held_blocks *held, char *err,
                          size_t errlen)
{
    for (size_t k = 0; k < l->count; k++)
        if (h5_output_write_held(file, &l->datasets[k], &held->blocks[k], err, errlen))
            return -1;
    return 0;
}

static int ops_sync(void *file, char *err, size_t errlen)
{
    return h5_output_sync(file, err, errlen);
}

static int ops_close(void *file, char *err, size_t errlen)
{
    int status = h5_output_close(file, err, errlen);
    free(file);
    return status;
}

const output_ops h5_output_ops = {0, ops_open, ops_write, ops_sync, ops_close, NULL};
const output_ops h5_held_output_ops = {1, ops_open, ops_write_held, ops_sync, ops_close, NULL};
