/* The HDF5 file netCDF-4 makes of a layout: what a kernel's netCDF-4 run writes (nc4_output.c)
 * and what its --describe states, from one definition so the two cannot disagree. Needs no
 * netCDF library: the MPICH build describes a netCDF-4 run it cannot make. The variables'
 * dimensions, types and definition are netCDF's, shared with the PnetCDF output
 * (pnetcdf_output.c).
 *
 * netCDF-C 4.9 (libhdf5/nc4hdf.c), with the library's defaults:
 * - every variable is a root-level dataset; its dimensions are named from the fastest axis x,
 *   y, z, w, and shared by the variables (one length per name);
 * - every dimension without a coordinate variable gets a dataset of its own before the
 *   variables, in the order the dimensions were defined (nc4_rec_write_metadata): a dimension
 *   scale of its length in 32-bit big-endian floats, contiguous, never written
 *   (nc4_create_dim_wo_var);
 * - a variable without an unlimited dimension, filter or chunk sizes is contiguous
 *   (var_create_dataset), and its dataset gets the type's netCDF fill value
 *   (H5Pset_fill_value) unless the program turns fill off, which this output does not: under
 *   HDF5's default fill time (ifset) parallel HDF5 writes that fill when it allocates the
 *   dataset, at create;
 * - leaving define mode (nc_enddef), nc_sync and nc_close each write netCDF's metadata and
 *   flush the file, H5Fflush(H5F_SCOPE_GLOBAL) (sync_netcdf4_file, libhdf5/hdf5file.c): a
 *   run flushes before its writes and at its close besides its own sync. */
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

/* The dimensions of the layout's variables in the order they are defined (each dataset's axes
 * in order, a name defined at its first use); *axis_dim[k][a] is the index in out->dims of
 * axis a of dataset k, when axis_dim is not NULL. -1 with err naming the dataset when the
 * layout cannot be written as root-level netCDF variables over shared x, y, z, w. */
int nc4_dimensions_of(const layout *l, nc4_dimensions *out, int (*axis_dim)[DECOMP_MAX_DIMS],
                      char *err, size_t errlen);
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

/* The datasets of the file, in creation order: the dimension datasets (created_only), then
 * the layout's variables with user_fill_value set; flush_at_define and flush_at_close set. */
int nc4_file_layout(const layout *l, layout *out, char *err, size_t errlen);

#endif
