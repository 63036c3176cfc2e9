// PnetCDF 1.12 (Debian's libpnetcdf 1.12.3 here) writing a CDF-5 file (ncmpi_create with
// NC_64BIT_DATA) of fixed-size variables, with its defaults: no fill (NC_NOFILL is PnetCDF's
// default mode), the workload's datasets its variables, in definition order. What it adds to
// the program's writes, from PnetCDF's source at tag checkpoint.1.12.3 and the netCDF format
// specification ("The NetCDF Classic Format Specification", CDF-5 with 64-bit counts):
// - the header: magic and record count, the dimension list, no global attribute, the variable
//   list (each variable's name, dimension ids, no attribute, type, size and begin); its length
//   is ncmpio_hdr_len_NC's. Its dimensions are netcdf_dimensions.hpp's, each named in at most
//   4 characters, as a variable's name is the dataset's without its leading '/';
// - where the variables begin (NC_begins, src/drivers/ncmpio/ncmpio_enddef.c): the header's
//   extent is its length rounded up to nc_header_align_size (512 unless set,
//   FILE_ALIGNMENT_DEFAULT); each fixed-size variable begins at the previous one's end rounded
//   up to nc_var_align_size (4 unless set: in 1.12 it aligns every fixed-size variable; from
//   1.13 only the data section); every alignment is rounded up to 4 (ncmpio__enddef);
//   nc_record_align_size aligns the record variables' section, which a workload without an
//   unlimited dimension does not have, so it moves nothing here;
// - leaving define mode, rank 0 alone writes the header, its length and not its padding, with
//   an independent MPI_File_write_at on the collective file handle (write_NC).
// Not modelled: the header's alignment to a striping_unit the MPI-IO library reports (files of
// more than 4 stripes, nc_header_align_size unset), attributes, record variables, the
// nonblocking ncmpi_iput + ncmpi_wait_all aggregation, and the header read at ncmpi_open.
// A captured PnetCDF run is not this model's: its capture holds the header among the MPI-IO
// regions PnetCDF wrote, and is `api: mpiio` (sim-models/WORKLOAD.md).
#pragma once

#include "iolib/io_library.hpp"

namespace iosim {

const IoLibrary& pnetcdf_library();

// The bytes of the CDF-5 header of the session's variables.
uint64_t cdf5_header_bytes(const FileSession& session);

}  // namespace iosim
