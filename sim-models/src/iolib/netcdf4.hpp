// netCDF-4 over parallel HDF5: what a program that writes through netCDF's defaults
// (nc_create_par, nc_def_dim, nc_def_var, nc_enddef, nc_put_vara, nc_close) asks of HDF5 that a
// program calling HDF5 with HDF5's own defaults does not. The workload says `api: netcdf4`.
// Sources: netCDF-C v4.9.0 (Debian's libnetcdf-mpi 4.9.0 here), Unidata/netcdf-c at tag v4.9.0:
// - fill: a variable's no_fill follows the file's fill mode (libhdf5/hdf5var.c:346-347), which
//   is NC_FILL unless nc_set_fill says otherwise (the file info is calloc'd, NC_FILL = 0); with
//   fill on, var_create_dataset sets netCDF's fill value, the default one for the type if the
//   program set none (libhdf5/nc4hdf.c:785-817, libsrc4/nc4var.c:1568-1628 nc4_get_fill_value).
//   HDF5 then holds a user-defined fill value, and parallel HDF5 fills a contiguous dataset
//   when it allocates it (hdf5_fill.hpp); with NC_NOFILL it sets fill time
//   never (nc4hdf.c:785-789).
// - storage: contiguous when no dimension is unlimited, no filter is set and no chunk sizes
//   were given (nc4hdf.c:890-895): the workload's chunk_dims null.
// - transfer: a variable's parallel access is NC_INDEPENDENT (0, netcdf_par.h:26) until
//   nc_var_par_access sets NC_COLLECTIVE (libsrc4/nc4var.c:482-485); set_par_access passes it
//   to H5Pset_dxpl_mpio (libhdf5/hdf5var.c:1481-1496).
// - file access: collective metadata reads and writes on (libhdf5/hdf5create.c:205-208, since
//   netCDF 4.5.0 with HDF5 1.10); HDF5 1.8 object formats, the lower library version bound
//   (hdf5set_format_compatibility, libhdf5/hdf5set_format_compatibility.c:81).
// - file creation: link and attribute creation order tracked and indexed, no object times
//   (hdf5create.c:181-200); every variable the same (nc4hdf.c:776-777, 966-970).
// - dimensions: nc_enddef writes every dimension without a coordinate variable as a dataset of
//   its length in 32-bit floats, contiguous, before the variables (nc4_rec_write_metadata,
//   nc4hdf.c:1899; nc4_create_dim_wo_var, nc4hdf.c:1730), each an H5Dcreate2 (collective in
//   parallel HDF5) costing what a variable's does, and a variable's data starts after them: a
//   dimension scale (H5DSset_scale, nc4hdf.c:1792) with HDF5's default fill value (filled
//   where the site's HDF5 fills such datasets, hdf5_default_fill.hpp) and its id (_Netcdf4Dimid,
//   nc4hdf.c:1798). Every variable lists its dimension ids (_Netcdf4Coordinates,
//   write_coord_dimids, nc4hdf.c:991), and once all are created each axis is attached to its
//   dimension's dataset (attach_dimscales, nc4hdf.c:1378-1430, called at 1962: H5DSattach_scale,
//   a DIMENSION_LIST of references on the variable, kept in a global heap collection allocated
//   after the data, and a REFERENCE_LIST on the dimension). The dimensions' names are the
//   program's, which the workload does not say: `dim<id>` here.
// - provenance: sync_netcdf4_file writes the root group's _NCProperties (libhdf5/hdf5file.c:171;
//   NC4_write_ncproperties, libhdf5/nc4info.c:303: "version=2,netcdf=4.9.0,hdf5=1.10.8").
// - flushes: nc_enddef ends in sync_netcdf4_file (hdf5file.c:743), whose H5Fflush writes the
//   dirty metadata and calls MPI_File_sync on every rank (hdf5file.c:123-180; HDF5's
//   H5FD_mpio_flush syncs unless the file is closing, H5FDmpio.c:1929-1932 in 1.10.5); nc_close
//   calls it too (hdf5file.c:307), then H5Fclose (hdf5file.c:236): a flush, then HDF5's close.
// What the model does not add: the fclose degree (H5F_CLOSE_WEAK, hdf5create.c:122), which
// changes nothing written; the chunk cache, set for serial files only; coordinate variables,
// unlimited dimensions, groups, attributes of the program's own.
// Measured here (a 3-D block write, 8 ranks, Open MPI 4.1.4, ROMIO, netCDF 4.9.0/HDF5 1.10.8,
// strace): at nc_enddef rank 0 alone writes the whole variable in 1 MiB fill writes, then
// every rank fsyncs; an independent nc_put_vara is one pwrite per contiguous row; nc_close
// fsyncs on every rank.
#pragma once

#include "iolib/io_library.hpp"

namespace iosim {

const IoLibrary& netcdf4_library();

}  // namespace iosim
