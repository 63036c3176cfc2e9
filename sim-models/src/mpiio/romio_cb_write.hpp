// ROMIO's romio_cb_write as its generic collective write applies it (ADIOI_GEN_WriteStridedColl,
// MPICH src/mpi/romio/adio/common/ad_write_coll.c; the ufs, nfs and Lustre drivers enter it, or
// the Lustre one its copy of the same decision):
//  - disable: every rank writes its pieces independently, and the call exchanges nothing;
//  - automatic (the default) and enable: the ranks first allgather their start offsets, then
//    their end offsets; automatic then buffers only if the accesses interleave, and otherwise
//    writes independently, having paid for both allgathers;
//  - buffering (two-phase): ADIOI_Calc_others_req's alltoall of request counts and its
//    exchange of the offset-length lists, ADIOI_Exch_and_write's allreduce of the round count,
//    the rounds' own exchanges (collective_buffering.hpp), and a closing allreduce (a bcast
//    with one aggregator) of the error code that keeps later independent writes behind it.
#pragma once

#include <vector>

#include "model/model.hpp"
#include "selection/pieces.hpp"

namespace iosim {

// ROMIO's interleaving test, in rank order: some rank's access starts before the previous
// rank's ends (st[i] < end[i-1], each end the last byte). Ranks that write nothing are passed
// over. Accesses out of rank order count as interleaved even when they do not overlap.
bool romio_interleaved(const PieceSet& pieces);

// Whether the collective call buffers (two-phase) under the hint.
bool romio_buffers(Hint cb_write, const std::vector<PieceSet>& pieces);

// The collective steps the call takes outside the rounds of buffering: 0 under disable, the
// two allgathers of the offsets when it then writes independently, and with buffering also
// the request exchange, the round count's allreduce and the closing one.
int romio_call_steps(Hint cb_write, bool buffers);

}  // namespace iosim
