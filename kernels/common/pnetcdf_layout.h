/* The file PnetCDF makes of a layout: what a kernel's PnetCDF run writes (pnetcdf_output.c) and
 * what its --describe states, from one definition so the two cannot disagree. Needs no PnetCDF
 * library: the MPICH build describes a PnetCDF run it cannot make.
 *
 * The file is CDF-5 (netCDF's classic format with 64-bit sizes, "NetCDF File Format
 * Specification"; ncmpi_create with NC_64BIT_DATA): a header naming the dimensions (as the
 * netCDF-4 output names them, nc4_layout.h) and the variables, then each variable, row-major,
 * its size padded to 4 bytes. PnetCDF 1.12, with none of its hints set (ncmpi_inq_file_info:
 * nc_header_align_size 512, nc_var_align_size 4), starts the first variable at the header's
 * size rounded up to 512 bytes and each next one at the previous one's end rounded up to 4.
 * Leaving define mode, rank 0 writes the header (its size, not its padding) in a collective
 * write the others join with nothing.
 *
 * As the workload format states a file written through MPI-IO (sim-models/WORKLOAD.md, api
 * pnetcdf): its regions end to end from offset 0, the header `bytes@0` (written by writer 0
 * alone), the padding after it and between variables (`bytes@OFFSET`, never written), and the
 * variables, each with its blocks. */
#ifndef IOTWIN_PNETCDF_LAYOUT_H
#define IOTWIN_PNETCDF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"

/* The bytes of the CDF-5 header of the layout's variables; 0 with err set when the layout
 * cannot be written as netCDF variables (nc4_dimensions_of). */
uint64_t pnetcdf_header_bytes(const layout *l, char *err, size_t errlen);
/* The regions of the file, in file order (above); 0, or -1 with err set. */
int pnetcdf_file_layout(const layout *l, layout *out, char *err, size_t errlen);

#endif
