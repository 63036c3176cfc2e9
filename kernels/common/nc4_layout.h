/* A layout as netCDF variables: what a kernel's netCDF-4 run (nc4_output.c) and PnetCDF run
 * (pnetcdf_output.c) define, from one definition. Needs no netCDF library. Every variable is a
 * root-level variable; its dimensions are named from the fastest axis x, y, z, w, and shared by
 * the variables (one length per name); a variable is contiguous (netCDF's default without an
 * unlimited dimension, filter or chunk sizes). What netCDF-4 then makes of them in the HDF5
 * file (a dataset per dimension, its fill value, its flushes) is iosim's netCDF-4 model's
 * (sim-models/src/iolib/netcdf4.hpp): a run's --describe states the variables (`api:
 * netcdf4`). */
#ifndef IOTWIN_NC4_LAYOUT_H
#define IOTWIN_NC4_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#define NC4_AXIS_NAMES 4 /* x, y, z, w */

typedef struct {
    char name[2];
    uint64_t length;
} nc4_dimension;

typedef struct {
    nc4_dimension dims[NC4_AXIS_NAMES]; /* in definition order */
    int count;
} nc4_dimensions;

/* The netCDF type of an element type: its code in netCDF's file formats (NC_INT 4, NC_FLOAT 5,
 * NC_DOUBLE 6, NC_UBYTE 7, NC_USHORT 8), which netCDF-C's API and PnetCDF's both take. */
int netcdf_type_code(element_type type);

/* A netCDF library's define-mode calls (netCDF-C's nc_*, PnetCDF's ncmpi_*), each returning
 * the library's status, 0 on success. */
typedef struct {
    int (*def_dim)(int ncid, const char *name, uint64_t length, int *dimid);
    int (*def_var)(int ncid, const char *name, int type, int ndims, const int *dimids,
                   int *varid);
    int (*enddef)(int ncid);
} netcdf_definer;

/* Defines the layout's dimensions and variables through `api` (varids[k]: dataset k's) and
 * leaves define mode. 0, or -1 with *status the library's (or 0 with err set when the layout
 * cannot be written as netCDF variables, or memory runs out). */
int netcdf_define(const netcdf_definer *api, int ncid, const layout *l, int varids[],
                  int *status, char *err, size_t errlen);

#endif
