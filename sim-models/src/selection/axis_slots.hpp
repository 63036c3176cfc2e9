// One axis of a regular selection: the sorted, disjoint index ranges (slots) it selects, held
// as runs of slots of one extent at a fixed stride, so that finding the slot of an index or
// the selected length of a range is arithmetic (box_region.hpp builds selections from them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "selection/pieces.hpp"

namespace iosim {

// Sorted, disjoint slots along one axis, in the axis' units (elements; bytes on the last axis),
// held as runs of slots of one extent at a fixed stride: a uniform decomposition is one run, a
// balanced one two, a strided hyperslab one or two (its last block cut at the array's end).
class AxisSlots {
public:
    // Slots tiling [shift, shift + sum(extents)) in order: a decomposition's along one axis.
    static AxisSlots listed(const std::vector<uint64_t>& extents, uint64_t shift, uint64_t scale);
    // `count` slots of `block` every `stride` from `first`, the last cut at `limit`.
    static AxisSlots progression(uint64_t first, uint64_t stride, uint64_t count, uint64_t block, uint64_t limit);

    uint64_t count() const { return count_; }
    uint64_t start(uint64_t s) const
    {
        const Run& r = run_of(s);
        return r.start + (s - r.first_slot) * r.stride;
    }
    uint64_t extent(uint64_t s) const { return run_of(s).extent; }
    uint64_t end(uint64_t s) const { return start(s) + extent(s); }
    // The first slot that ends after x (count() if none).
    uint64_t first_ending_after(uint64_t x) const;
    // The nonempty slot holding index x, or count() if none does.
    uint64_t slot_of(uint64_t x) const;
    // The selected length of [x, y).
    uint64_t overlap(uint64_t x, uint64_t y) const;
    uint64_t total() const { return total_; }
    // The first selected index at or after x (no_offset if none), the end of the last selected
    // one before y (0 if none).
    uint64_t first_selected(uint64_t x) const;
    uint64_t last_selected_end(uint64_t y) const;
    // The slots that meet [lo, hi), cut to it and moved to start at 0 (a chunk's view of the
    // axis); `first` gets the index here of the first of them.
    AxisSlots window(uint64_t lo, uint64_t hi, uint64_t& first) const;
    // The slots of [s0, s1) with a nonzero extent.
    uint64_t nonempty(uint64_t s0, uint64_t s1) const
    {
        uint64_t n = 0;
        equal_runs(s0, s1, [&](uint64_t, uint64_t slots, uint64_t extent) { n += extent > 0 ? slots : 0; });
        return n;
    }
    // Consecutive slots of [s0, s1) with equal extents: fn(first slot, slots, extent).
    template <class Fn>
    void equal_runs(uint64_t s0, uint64_t s1, Fn fn) const;

private:
    struct Run {
        uint64_t first_slot, slots, start, stride, extent;
        uint64_t end() const { return start + (slots - 1) * stride + extent; }  // of its last slot
    };
    void add_run(uint64_t slots, uint64_t start, uint64_t stride, uint64_t extent);
    const Run& run_of(uint64_t s) const
    {
        if (runs_.size() == 1)
            return runs_[0];
        auto r = std::upper_bound(runs_.begin(), runs_.end(), s,
                                  [](uint64_t slot, const Run& run) { return slot < run.first_slot; });
        return *(r - 1);
    }
    uint64_t covered_below(uint64_t t) const;  // selected length of [0, t)

    uint64_t count_ = 0, total_ = 0;
    std::vector<Run> runs_;
    std::vector<uint64_t> covered_before_;  // per run: the selected length of the runs before it
};

template <class Fn>
void AxisSlots::equal_runs(uint64_t s0, uint64_t s1, Fn fn) const
{
    if (s0 >= s1)
        return;
    auto r = std::upper_bound(runs_.begin(), runs_.end(), s0,
                              [](uint64_t slot, const Run& run) { return slot < run.first_slot; }) - 1;
    for (uint64_t s = s0; s < s1; ++r) {
        uint64_t t = std::min(s1, r->first_slot + r->slots);
        fn(s, t - s, r->extent);
        s = t;
    }
}

}  // namespace iosim
