// How parallel HDF5 hands an H5Dwrite to MPI-IO. HDF5 1.10's H5D__ioinfo_adjust (H5Dio.c)
// asks H5D__mpio_opt_possible (H5Dmpio.c:288-430 in 1.10.5) whether the call can go through
// MPI-IO with derived datatypes; independent transfer is the first reason it cannot
// (H5D_MPIO_SET_INDEPENDENT, H5Dmpio.c:307-311), a datatype conversion or a data transform
// others. A collective call then writes the whole selection in one MPI_File_write_at_all
// under a file view (H5FD_mpio_write, H5FDmpio.c:1833), which mpi_io.hpp models. An
// independent one is written sequence by sequence: H5D__contig_writevv (H5Dcontig.c:1224)
// calls H5D__contig_writevv_cb, one H5F_block_write, i.e. one MPI_File_write_at of one
// contiguous run, per run of the selection (H5Dcontig.c:1189-1197), because the MPI-IO driver
// does not offer HDF5's own sieve buffer (its feature flags, H5FDmpio.c:1154-1158, lack
// H5FD_FEAT_DATA_SIEVE) and parallel HDF5 bypasses the chunk cache for writes
// (H5D__chunk_cacheable, H5Dchunk.c:2099-2106), so a chunk's runs go out the same way. No file
// view, so ROMIO has nothing to sieve: every run is its own write, and its own extent lock.
// Measured here (HDF5 1.10.8 and netCDF 4.9.0 under MPICH and Open MPI's ROMIO, strace): an
// independent write of a 32^3 block of doubles is 1,024 pwrites of 256 bytes per rank.
#pragma once

#include "mpiio/mpi_io.hpp"

namespace iosim {

// One H5Dwrite (or H5Dwrite_multi) of an HDF5 file session.
void hdf5_write(const MpiIoContext& ctx, const WriteCall& call);

}  // namespace iosim
