/* PnetCDF (Debian's libpnetcdf-dev is built on Open MPI, so only that flavour's kernels have
 * it): a CDF-5 file (NC_64BIT_DATA) with PnetCDF's defaults (no fill, none of its hints set),
 * every variable written in one ncmpi_put_vara_all (ncmpi_put_vara in independent data mode
 * when the run is independent).
 *
 * PnetCDF's flexible API takes the memory as an MPI datatype: the block inside its halo is a
 * subarray of the memory it is held in (mpi_types.h), so the halo is skipped without a copy,
 * as the MPI-IO output does. */
#include "pnetcdf_output.h"

#ifdef IOTWIN_PNETCDF

#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_types.h"
#include "nc4_layout.h"
#include "report.h"

typedef struct {
    int ncid;
    const char *path; /* not copied: the caller's */
    int independent;
} pnetcdf_file;

static int fail(char *err, size_t errlen, const char *what, const char *path, int status)
{
    snprintf(err, errlen, "%s '%s': %s", what, path, ncmpi_strerror(status));
    return -1;
}

static int open_file(void **file, const char *path, MPI_Comm comm, int independent, char *err,
                     size_t errlen)
{
    pnetcdf_file *f = malloc(sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory opening '%s'", path);
        return -1;
    }
    f->path = path;
    f->independent = independent;
    int status = ncmpi_create(comm, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &f->ncid);
    if (status != NC_NOERR) {
        free(f);
        return fail(err, errlen, "cannot create netCDF file", path, status);
    }
    *file = f;
    return 0;
}

static int def_dim(int ncid, const char *name, uint64_t length, int *dimid)
{
    return ncmpi_def_dim(ncid, name, (MPI_Offset)length, dimid);
}

static const netcdf_definer definer = {def_dim, ncmpi_def_var, ncmpi_enddef};

/* Defines the dimensions and variables; leaving define mode writes the header. */
static int define(pnetcdf_file *f, const layout *l, int varids[], char *err, size_t errlen)
{
    int status;
    if (netcdf_define(&definer, f->ncid, l, varids, &status, err, errlen) == 0)
        return 0;
    return status == NC_NOERR ? -1 : fail(err, errlen, "cannot define the variables of", f->path,
                                          status);
}

/* This rank's block of the variable; an empty block takes part with no element. */
static int write_variable(pnetcdf_file *f, int varid, const dataset_spec *ds, const held_block *b)
{
    MPI_Offset start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
    for (int a = 0; a < b->ndims; a++) {
        start[a] = (MPI_Offset)b->start[a];
        count[a] = (MPI_Offset)b->count[a];
    }
    MPI_Datatype element = mpi_element(ds->type), in_memory = element;
    MPI_Offset elements = 0;
    if (held_block_elements(b) > 0) {
        if (held_block_memory_type(b, element, &in_memory) != MPI_SUCCESS)
            return NC_EINVAL;
        elements = 1;
    }
    int status = f->independent
                     ? ncmpi_put_vara(f->ncid, varid, start, count, b->values, elements, in_memory)
                     : ncmpi_put_vara_all(f->ncid, varid, start, count, b->values, elements,
                                          in_memory);
    if (in_memory != element)
        MPI_Type_free(&in_memory);
    return status;
}

static int write_variables(pnetcdf_file *f, const layout *l, const held_blocks *held,
                           const int varids[], char *err, size_t errlen)
{
    for (size_t k = 0; k < l->count; k++) {
        const dataset_spec *ds = &l->datasets[k];
        if (!held_block_fits_subarray(&held->blocks[k])) {
            snprintf(err, errlen, "dataset '%s': an extent over 2^31-1 elements is beyond "
                     "MPI_Type_create_subarray", ds->name);
            return -1;
        }
        int status = write_variable(f, varids[k], ds, &held->blocks[k]);
        if (status != NC_NOERR) {
            char what[200];
            snprintf(what, sizeof what, "cannot write variable '%s' of", ds->name + 1);
            return fail(err, errlen, what, f->path, status);
        }
    }
    return 0;
}

static int write_layout(void *file, const layout *l, const held_blocks *held, char *err,
                        size_t errlen)
{
    pnetcdf_file *f = file;
    int *varids = malloc((l->count ? l->count : 1) * sizeof *varids);
    if (!varids) {
        snprintf(err, errlen, "out of memory writing '%s'", f->path);
        return -1;
    }
    int failed = define(f, l, varids, err, errlen);
    if (!failed && f->independent) {
        int status = ncmpi_begin_indep_data(f->ncid);
        failed = status != NC_NOERR && fail(err, errlen, "cannot begin independent data mode in",
                                            f->path, status);
    }
    if (!failed)
        failed = write_variables(f, l, held, varids, err, errlen);
    if (!failed && f->independent) {
        int status = ncmpi_end_indep_data(f->ncid);
        failed = status != NC_NOERR && fail(err, errlen, "cannot end independent data mode in",
                                            f->path, status);
    }
    free(varids);
    return failed ? -1 : 0;
}

static int sync_file(void *file, char *err, size_t errlen)
{
    pnetcdf_file *f = file;
    int status = ncmpi_sync(f->ncid);
    return status == NC_NOERR ? 0 : fail(err, errlen, "cannot sync", f->path, status);
}

static int close_file(void *file, char *err, size_t errlen)
{
    pnetcdf_file *f = file;
    int status = ncmpi_close(f->ncid);
    int result = status == NC_NOERR ? 0 : fail(err, errlen, "cannot close", f->path, status);
    free(f);
    return result;
}

/* `"pnetcdf": "1.12.3"`. */
static const char *params(void)
{
    return report_version_member("pnetcdf", ncmpi_inq_libvers());
}

static const output_ops ops = {1, open_file, write_layout, sync_file, close_file, params};

const output_ops *pnetcdf_output_ops(void)
{
    return &ops;
}

#else

const output_ops *pnetcdf_output_ops(void)
{
    return NULL;
}

#endif
