// What a write smaller than a target's RAID stripe costs before it is done: the holder's flush
// at an extent-lock revocation (extent_locks.hpp) is such a write, and its writers wait for it.
//
// Parity RAID without a write-back cache (RAID6 groups that a server assembles from raw drives):
// a write that covers part of a stripe is a read-modify-write, the old data and both parities
// read, the new ones computed and written: six drive operations on three drives (HPE MR Gen10
// Plus controller manual, "Backed-out writes": "the write penalty for a RAID 6 and RAID 60 is
// always six drive operations"; Patterson, Gibson and Katz, SIGMOD 1988, the small-write
// penalty). The writes wait for the reads, so the write takes `read_modify_write_passes`
// positionings of the drives (`rpc_overhead_s` each) one after the other.
// Behind an array controller's write-back cache the write is acknowledged once it is in the
// controller's cache, and the controller gathers writes to contiguous blocks into full stripes
// before it writes the drives (Compaq StorageWorks RAID Array 3000 controller manual,
// "Write-back caching", "Write gathering"): the write takes `cache_write_s`, not a positioning.
// A flash device, or a drive that is a target itself: one request of the media (`rpc_overhead_s`).
#pragma once

#include "model/model.hpp"

namespace iosim {

double partial_stripe_write_s(const FileSystem& fs);

}  // namespace iosim
