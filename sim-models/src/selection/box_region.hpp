// A regular selection of a row-major array in closed form: along each axis a sorted list of
// slots (the blocks of a decomposition, the blocks of a strided hyperslab), the selection
// being every combination of one slot per axis, and the writer of a combination a linear
// function of its slot indices (a decomposition: row-major over its grid; a hyperslab: one
// writer). What a writer or an interval of the file holds is computed from the slots, axis by
// axis: the cost follows the axes and the writers an interval touches, not the contiguous
// runs (a 3-D block of n^3 elements is n^2 runs; here it is three slots).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "selection/axis_slots.hpp"
#include "selection/pieces.hpp"

namespace iosim {

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

// A decomposition's blocks (Dataset grid/extents/starts) placed at `origin` in an array of
// `dims` elements of `element_bytes` stored from `base`.
std::shared_ptr<const Region> decomposition_region(uint64_t base, const std::vector<uint64_t>& dims,
                                                   uint64_t element_bytes, const Dataset& decomposition,
                                                   const std::vector<uint64_t>& origin);

}  // namespace iosim
