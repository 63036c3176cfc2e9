#include "nc4_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char AXIS_NAMES[NC4_AXIS_NAMES] = {'x', 'y', 'z', 'w'};

int netcdf_type_code(element_type type)
{
    switch (type) {
    case ELEM_INT32:
        return 4;
    case ELEM_FLOAT32:
        return 5;
    case ELEM_FLOAT64:
        return 6;
    case ELEM_UINT8:
        return 7;
    case ELEM_UINT16:
        return 8;
    }
    return 0;
}

static int check_variable(const dataset_spec *ds, char *err, size_t errlen)
{
    const char *name = ds->name + 1;
    if (ds->name[0] != '/' || !*name || strchr(name, '/')) {
        snprintf(err, errlen, "dataset '%s': the netCDF outputs write root-level variables "
                 "only (a name '/var')", ds->name);
        return -1;
    }
    if (ds->decomp.ndims > NC4_AXIS_NAMES) {
        snprintf(err, errlen, "dataset '%s': the netCDF outputs name at most %d axes",
                 ds->name, NC4_AXIS_NAMES);
        return -1;
    }
    if (strlen(name) == 1 && memchr(AXIS_NAMES, name[0], NC4_AXIS_NAMES)) {
        snprintf(err, errlen, "dataset '%s': a variable named as a dimension would be its "
                 "coordinate variable", ds->name);
        return -1;
    }
    if (ds->chunked) {
        snprintf(err, errlen, "dataset '%s': the netCDF outputs write contiguous variables "
                 "(netCDF's default)", ds->name);
        return -1;
    }
    return 0;
}

static int dimension_index(nc4_dimensions *out, char name, uint64_t length, const char *dataset,
                           char *err, size_t errlen)
{
    for (int i = 0; i < out->count; i++) {
        if (out->dims[i].name[0] != name)
            continue;
        if (out->dims[i].length == length)
            return i;
        snprintf(err, errlen, "dataset '%s': netCDF dimension '%c' is %llu long for an earlier "
                 "variable and %llu here (the netCDF outputs share x, y, z, w)", dataset,
                 name, (unsigned long long)out->dims[i].length, (unsigned long long)length);
        return -1;
    }
    out->dims[out->count].name[0] = name;
    out->dims[out->count].name[1] = '\0';
    out->dims[out->count].length = length;
    return out->count++;
}

/* The dimensions of the layout's variables in the order they are defined (each dataset's axes
 * in order, a name defined at its first use); axis_dim[k][a] is the index in out->dims of
 * axis a of dataset k. -1 with err naming the dataset when the layout cannot be written as
 * root-level netCDF variables over shared x, y, z, w. */
static int nc4_dimensions_of(const layout *l, nc4_dimensions *out,
                             int (*axis_dim)[DECOMP_MAX_DIMS], char *err, size_t errlen)
{
    out->count = 0;
    for (size_t k = 0; k < l->count; k++) {
        const dataset_spec *ds = &l->datasets[k];
        uint64_t dims[DECOMP_MAX_DIMS];
        if (check_variable(ds, err, errlen))
            return -1;
        decomp_dims(&ds->decomp, dims);
        int n = ds->decomp.ndims;
        for (int a = 0; a < n; a++) {
            int at = dimension_index(out, AXIS_NAMES[n - 1 - a], dims[a], ds->name, err, errlen);
            if (at < 0)
                return -1;
            axis_dim[k][a] = at;
        }
    }
    return 0;
}

static int define_all(const netcdf_definer *api, int ncid, const layout *l,
                      const nc4_dimensions *dims, int (*axis_dim)[DECOMP_MAX_DIMS],
                      int varids[])
{
    int dimids[NC4_AXIS_NAMES], status = 0;
    for (int i = 0; i < dims->count && !status; i++)
        status = api->def_dim(ncid, dims->dims[i].name, dims->dims[i].length, &dimids[i]);
    for (size_t k = 0; k < l->count && !status; k++) {
        const dataset_spec *ds = &l->datasets[k];
        int var_dims[DECOMP_MAX_DIMS];
        for (int a = 0; a < ds->decomp.ndims; a++)
            var_dims[a] = dimids[axis_dim[k][a]];
        status = api->def_var(ncid, ds->name + 1, netcdf_type_code(ds->type), ds->decomp.ndims,
                              var_dims, &varids[k]);
    }
    return status ? status : api->enddef(ncid);
}

int netcdf_define(const netcdf_definer *api, int ncid, const layout *l, int varids[],
                  int *status, char *err, size_t errlen)
{
    nc4_dimensions dims;
    int (*axis_dim)[DECOMP_MAX_DIMS] = malloc((l->count ? l->count : 1) * sizeof *axis_dim);
    *status = 0;
    if (!axis_dim) {
        snprintf(err, errlen, "out of memory defining the netCDF variables");
        return -1;
    }
    int failed = nc4_dimensions_of(l, &dims, axis_dim, err, errlen);
    if (!failed) {
        *status = define_all(api, ncid, l, &dims, axis_dim, varids);
        failed = *status != 0;
    }
    free(axis_dim);
    return failed ? -1 : 0;
}
