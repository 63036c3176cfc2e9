// ROMIO's two-phase rounds outside its Lustre driver (ADIOI_Exch_and_write and
// ADIOI_W_Exchange_data in MPICH src/mpi/romio/adio/common/ad_write_coll.c; the GPFS driver's
// copy, adio/ad_gpfs/ad_gpfs_wrcoll.c, does the same):
//  - an aggregator's rounds start at the first byte any rank writes in its file domain
//    (st_loc), not at the domain's start, and step by cb_buffer_size to the last (end_loc);
//  - a round that receives any data writes its whole span [off, off + size) with one
//    ADIO_WriteContig, holes included, and reads that span first (ADIO_ReadContig) when the
//    data does not cover it: a read-modify-write of everything between the pieces.
// So ranks whose pieces lie far apart under one aggregator (each rank its own block of a
// shared file) have it read and write the whole stretch between them in every call. Measured
// here (MPICH 4.0.2's ufs driver; strace -f of bench/romio_cb_write.c, 2 ranks, blocks of 500
// records of 47,008 bytes, romio_cb_write=enable): the one aggregator's call is a pread and a
// pwrite of 16 MiB, then of the remaining 6,773,792 bytes, for the 94,016 bytes the ranks
// wrote; no fcntl lock.
#pragma once

#include <cstdint>
#include <memory>

#include "mpiio/collective_buffering.hpp"

namespace iosim {

// Even file domains of [lo, hi) over `naggs` (boundaries aligned up to `align`), each cut to
// the bytes `pieces` write in it; `per_round` bytes a round from each one's first byte.
std::unique_ptr<FileDomain> romio_rounds_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t align,
                                                uint64_t per_round, const PieceSet& pieces);

}  // namespace iosim
