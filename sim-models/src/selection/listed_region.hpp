// Pieces listed one by one, in file order: a chunked dataset's runs (each chunk stored where
// HDF5 put it), the fill of a chunked dataset, and the old path that materialises every
// piece of a call (PlanOptions::walk_pieces). Answers by walking its pieces, as iosim did
// before regular selections were computed in closed form.
#pragma once

#include <memory>
#include <vector>

#include "selection/pieces.hpp"

namespace iosim {

class ListedRegion : public Region {
public:
    // `pieces` sorted by offset (sort_by_offset).
    ListedRegion(std::vector<Access> pieces, uint64_t writers);

    WriterExtent extent() const override { return extent_; }
    uint64_t bytes() const override;
    uint64_t pieces() const override { return pieces_.size(); }
    uint64_t next_writer(uint64_t writer) const override;
    WriterExtent writer_extent(uint64_t writer) const override;
    void add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const override;
    void writer_pieces(uint64_t writer, const PieceFn& fn) const override;
    std::unique_ptr<CoverState> cover_state() const override;
    void cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const override;
    uint32_t last_writer() const override { return pieces_.back().writer; }
    uint32_t first_writer() const override { return pieces_.front().writer; }

private:
    std::vector<Access> pieces_;
    // Each writer's pieces, writer by writer, in file order within a writer (a counting sort).
    std::vector<uint32_t> by_writer_;
    std::vector<uint64_t> writer_first_;  // per writer + 1: its first slot in by_writer_
    WriterExtent extent_;
};

// A region of `pieces` in any order.
std::shared_ptr<const Region> listed(std::vector<Access> pieces, uint64_t writers);

}  // namespace iosim
