/* Parallel netCDF-4 (netCDF-C over parallel HDF5; Debian's libnetcdf-mpi-dev is built on Open
 * MPI, so only that flavour's kernels have it): the file nc4_layout.h says, with netCDF's
 * defaults (fill on), every variable written in one nc_put_vara, collective
 * (nc_var_par_access NC_COLLECTIVE) unless the run is independent.
 *
 * netCDF has no memory selection: its one strided-memory write, nc_put_varm, is
 * NCDEFAULT_put_varm for netCDF-4 files (libhdf5/hdf5dispatch.c), which makes one
 * nc_put_vara per run of the fastest axis (libdispatch/dvarput.c), a collective write each.
 * So the held block is copied without its halo into a contiguous buffer first, inside the
 * timed write, as an application using netCDF pays it. */
#include "output.h"

#ifdef IOTWIN_NETCDF4

#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc4_layout.h"

typedef struct {
    int ncid;
    const char *path; /* not copied: the caller's */
    int independent;
} nc4_file;

static int fail(char *err, size_t errlen, const char *what, const char *path, int status)
{
    snprintf(err, errlen, "%s '%s': %s", what, path, nc_strerror(status));
    return -1;
}

static nc_type nc_type_of(element_type type)
{
    switch (type) {
    case ELEM_FLOAT32:
        return NC_FLOAT;
    case ELEM_FLOAT64:
        return NC_DOUBLE;
    case ELEM_INT32:
        return NC_INT;
    case ELEM_UINT8:
        return NC_UBYTE;
    case ELEM_UINT16:
        return NC_USHORT;
    }
    return NC_NAT;
}

static int open_file(void **file, const char *path, MPI_Comm comm, int independent, char *err,
                     size_t errlen)
{
    nc4_file *f = malloc(sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory opening '%s'", path);
        return -1;
    }
    f->path = path;
    f->independent = independent;
    int status = nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, comm, MPI_INFO_NULL, &f->ncid);
    if (status != NC_NOERR) {
        free(f);
        return fail(err, errlen, "cannot create netCDF-4 file", path, status);
    }
    *file = f;
    return 0;
}

/* Defines the dimensions and variables; leaving define mode creates their datasets. */
static int define(nc4_file *f, const layout *l, int varids[], char *err, size_t errlen)
{
    nc4_dimensions dims;
    int (*axis_dim)[DECOMP_MAX_DIMS] = malloc((l->count ? l->count : 1) * sizeof *axis_dim);
    int dimids[NC4_AXIS_NAMES], status = NC_NOERR;
    if (!axis_dim) {
        snprintf(err, errlen, "out of memory defining the variables of '%s'", f->path);
        return -1;
    }
    if (nc4_dimensions_of(l, &dims, axis_dim, err, errlen)) {
        free(axis_dim);
        return -1;
    }
    for (int i = 0; i < dims.count && status == NC_NOERR; i++)
        status = nc_def_dim(f->ncid, dims.dims[i].name, dims.dims[i].length, &dimids[i]);
    for (size_t k = 0; k < l->count && status == NC_NOERR; k++) {
        const dataset_spec *ds = &l->datasets[k];
        int var_dims[DECOMP_MAX_DIMS];
        for (int a = 0; a < ds->decomp.ndims; a++)
            var_dims[a] = dimids[axis_dim[k][a]];
        status = nc_def_var(f->ncid, ds->name + 1, nc_type_of(ds->type), ds->decomp.ndims,
                            var_dims, &varids[k]);
    }
    free(axis_dim);
    if (status == NC_NOERR)
        status = nc_enddef(f->ncid);
    return status == NC_NOERR ? 0 : fail(err, errlen, "cannot define the variables of", f->path,
                                         status);
}

static int write_variable(nc4_file *f, int varid, const dataset_spec *ds, const held_block *b)
{
    size_t start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
    uint64_t n = held_block_elements(b);
    void *inner = malloc(n ? n * element_bytes(ds->type) : 1);
    if (!inner)
        return NC_ENOMEM;
    held_block_copy_inner(b, element_bytes(ds->type), inner);
    for (int a = 0; a < b->ndims; a++) {
        start[a] = b->start[a];
        count[a] = b->count[a];
    }
    int status = nc_var_par_access(f->ncid, varid, f->independent ? NC_INDEPENDENT
                                                                  : NC_COLLECTIVE);
    if (status == NC_NOERR)
        status = nc_put_vara(f->ncid, varid, start, count, inner);
    free(inner);
    return status;
}

static int write_layout(void *file, const layout *l, const held_blocks *held, char *err,
                        size_t errlen)
{
    nc4_file *f = file;
    int *varids = malloc((l->count ? l->count : 1) * sizeof *varids);
    if (!varids) {
        snprintf(err, errlen, "out of memory writing '%s'", f->path);
        return -1;
    }
    int failed = define(f, l, varids, err, errlen);
    for (size_t k = 0; k < l->count && !failed; k++) {
        int status = write_variable(f, varids[k], &l->datasets[k], &held->blocks[k]);
        if (status != NC_NOERR) {
            char what[200];
            snprintf(what, sizeof what, "cannot write variable '%s' of", l->datasets[k].name + 1);
            failed = fail(err, errlen, what, f->path, status);
        }
    }
    free(varids);
    return failed ? -1 : 0;
}

static int sync_file(void *file, char *err, size_t errlen)
{
    nc4_file *f = file;
    int status = nc_sync(f->ncid);
    return status == NC_NOERR ? 0 : fail(err, errlen, "cannot sync", f->path, status);
}

static int close_file(void *file, char *err, size_t errlen)
{
    nc4_file *f = file;
    int status = nc_close(f->ncid);
    int result = status == NC_NOERR ? 0 : fail(err, errlen, "cannot close", f->path, status);
    free(f);
    return result;
}

/* `"netcdf": "4.9.0"`: the version nc_inq_libvers starts with. */
static const char *params(void)
{
    static char text[64];
    const char *version = nc_inq_libvers();
    size_t len = strcspn(version, " ");
    snprintf(text, sizeof text, "\"netcdf\": \"%.*s\"", (int)(len < 40 ? len : 40), version);
    return text;
}

static const output_ops ops = {1, open_file, write_layout, sync_file, close_file, params};

const output_ops *nc4_output_ops(void)
{
    return &ops;
}

#else

const output_ops *nc4_output_ops(void)
{
    return NULL;
}

#endif
