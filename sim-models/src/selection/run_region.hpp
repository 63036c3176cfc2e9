// Hyperslab runs (WORKLOAD.md `runs`) of a contiguous dataset in closed form: writer k of a run
// selects the hyperslab moved by k * start_step, so the members an interval of the file can
// touch follow from its bounds by arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "selection/box_region.hpp"

namespace iosim {

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

}  // namespace iosim
