// A call repeated many times (WORKLOAD.md `repeat`: IOR's transfers and segments, a loop of
// slab writes) costs the simulator what its distinct repetitions cost, not `times` of them.
// The repetitions are planned one after another, each one's phases and what it adds to the
// breakdown (bytes per target, process and node, RPCs, lock revocations, POSIX calls) hashed;
// once the last q repetitions each equal the one q before them, and the next q planned equal them too (a repetition is what
// the one q earlier was: an OST cycle of a shared file's records, a per-rank file's stripes,
// the locks each leaves behind), the repetitions left are that period again: its phases go to
// the client as one block repeated (LustreClient::run_block, which folds its own state the same
// way), and its breakdown is added as many times. The period's offsets differ from the earlier
// ones', but nothing the model charges depends on an offset except through the stripes and lock
// units it lands on, which the equal hashes show repeat. A call made fewer than
// `min_folded_times` times, or with options.fold_repeats false, is planned repetition by
// repetition as the program makes it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "mpiio/mpi_io.hpp"

namespace iosim {

constexpr uint64_t min_folded_times = 64;

// How a shared file's repetitions `period` apart differ: by `rotation` (one step a period)
// of its targets. Without a rotation, repetitions must repeat as they are.
struct StripeShift {
    uint64_t period = 0;
    TargetRotation rotation;
};

// Plans `times` repetitions of a call, repetition k by `plan(k, ctx)` emitting its phases to
// ctx.sink; periodic repetitions beyond the first periods go to `blocks` as a repeated block,
// each repetition of it moved one step of its rotation further.
void fold_repetitions(const MpiIoContext& ctx, uint64_t times,
                      const std::function<void(uint64_t, const MpiIoContext&)>& plan,
                      const StripeShift& shift = {});

}  // namespace iosim
