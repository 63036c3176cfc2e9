// A regular selection of a row-major array in closed form: along each axis a sorted list of
// slots (the blocks of a decomposition, the blocks of a strided hyperslab), the selection
// being every combination of one slot per axis, and the writer of a combination a linear
// function of its slot indices (a decomposition: row-major over its grid; a hyperslab: one
// writer). What a writer or an interval of the file holds is computed from the slots, axis by
// axis: the cost follows the axes and the writers an interval touches, not the contiguous
// runs (a 3-D block of n^3 elements is n^2 runs; here it is three slots).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "pieces.hpp"

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

// The combinations of one slot per axis of a row-major array stored from `base`; combination
// (s_0, ...) written by writer0 + sum(s_a * writer_step[a]). dims and the last axis' slots in
// bytes.
class BoxRegion : public Region {
public:
    BoxRegion(uint64_t base, std::vector<uint64_t> dims, std::vector<AxisSlots> axes,
              std::vector<uint64_t> writer_step, uint64_t writer0, uint64_t writers);
    // The part of this region in the box [lo, hi) (per axis, the last in bytes) of its array,
    // as a region of an array of `dims` stored from `base`: a chunk of a chunked dataset.
    BoxRegion window(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi, uint64_t base,
                     std::vector<uint64_t> dims) const;
    // Writer w's pieces here.
    uint64_t writer_piece_count(uint64_t writer) const;
    // Per axis, the indices [lo, hi) (the last axis in bytes) between writer w's first and last
    // selected ones; false if it writes nothing here.
    bool writer_bounds(uint64_t writer, std::vector<uint64_t>& lo, std::vector<uint64_t>& hi) const;
    const AxisSlots& axis(size_t a) const { return axes_[a]; }

    WriterExtent extent() const override;
    uint64_t bytes() const override;
    uint64_t pieces() const override;
    uint64_t next_writer(uint64_t writer) const override;
    WriterExtent writer_extent(uint64_t writer) const override;
    void add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const override;
    void writer_pieces(uint64_t writer, const PieceFn& fn) const override;
    void cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const override;
    uint32_t last_writer() const override;
    uint32_t first_writer() const override;

private:
    // Writer w's slot per axis; false if w writes nothing here.
    bool slots_of(uint64_t writer, std::vector<uint64_t>& slot) const;
    // Slots [lo[a], hi[a]) per axis: their pieces in file order.
    void pieces_of(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi, const PieceFn& fn) const;
    uint64_t pieces_of_count(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi) const;
    size_t inner_axis(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi) const;
    void visit(size_t a, uint64_t off, uint64_t writer, uint64_t l, uint64_t h, CoverSink& sink) const;
    void whole_indices(size_t a, uint64_t off, uint64_t writer, uint64_t i0, uint64_t i1, CoverSink& sink) const;
    void whole_suffix(size_t a, uint64_t writer, uint64_t times, CoverSink& sink) const;

    uint64_t base_;
    std::vector<uint64_t> dims_;
    std::vector<AxisSlots> axes_;
    std::vector<uint64_t> step_;
    uint64_t writer0_, writers_;
    // A window's slot i along axis a is slot i + offset_[a] of grid_[a] in the region it was cut
    // from; writer_base_ is the writer of the window's first slots.
    std::vector<uint64_t> grid_, offset_;
    uint64_t writer_base_ = 0;
    bool one_writer_ = true;
    bool empty_ = false;
    std::vector<uint64_t> stride_;  // bytes per index along each axis
    // From axis a on, every slot taken: the first selected byte and the end of the last,
    // relative to the start of the sub-array.
    std::vector<uint64_t> suffix_first_, suffix_end_;
};

// A hyperslab run (WORKLOAD.md `runs`): writer first + k*step selects the hyperslab moved by
// k * start_step, k < writers. Writer k's selection is a one-writer BoxRegion made when asked.
class RunRegion : public Region {
public:
    RunRegion(uint64_t base, std::vector<uint64_t> dims, uint64_t element_bytes, const HyperslabRun& run);

    WriterExtent extent() const override;
    uint64_t bytes() const override;
    uint64_t pieces() const override;
    uint64_t next_writer(uint64_t writer) const override;
    WriterExtent writer_extent(uint64_t writer) const override;
    void add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const override;
    void writer_pieces(uint64_t writer, const PieceFn& fn) const override;
    void cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const override;
    uint32_t last_writer() const override;
    uint32_t first_writer() const override;

private:
    BoxRegion member(uint64_t k) const;
    bool member_of(uint64_t writer, uint64_t& k) const;

    uint64_t base_, element_bytes_;
    std::vector<uint64_t> dims_;
    HyperslabRun run_;
    bool empty_ = false;
    bool ordered_ = true;  // members' extents follow each other in k
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

// A decomposition's blocks (Dataset grid/extents/starts) placed at `origin` in an array of
// `dims` elements of `element_bytes` stored from `base`.
std::shared_ptr<const Region> decomposition_region(uint64_t base, const std::vector<uint64_t>& dims,
                                                   uint64_t element_bytes, const Dataset& decomposition,
                                                   const std::vector<uint64_t>& origin);

}  // namespace iosim
