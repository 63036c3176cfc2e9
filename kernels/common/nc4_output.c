/* Parallel netCDF-4 (netCDF-C over parallel HDF5; Debian's libnetcdf-mpi-dev is built on Open
 * MPI, so only that flavour's kernels have it): the variables nc4_layout.h defines, with netCDF's
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

#include "nc4_layout.h"
#include "report.h"

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

static int def_dim(int ncid, const char *name, uint64_t length, int *dimid)
{
    return nc_def_dim(ncid, name, (size_t)length, dimid);
}

static const netcdf_definer definer = {def_dim, nc_def_var, nc_enddef};

/* Defines the dimensions and variables; leaving define mode creates their datasets. */
static int define(nc4_file *f, const layout *l, int varids[], char *err, size_t errlen)
{
    int status;
    if (netcdf_define(&definer, f->ncid, l, varids, &status, err, errlen) == 0)
        return 0;
    return status == NC_NOERR ? -1 : fail(err, errlen, "cannot define the variables of", f->path,
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

/* `"netcdf": "4.9.0"`. */
static const char *params(void)
{
    return report_version_member("netcdf", nc_inq_libvers());
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
