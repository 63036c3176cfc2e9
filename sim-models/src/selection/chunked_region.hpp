// A decomposition or grid selection of a chunked dataset in closed form: each chunk is a small
// row-major array stored where HDF5 put it (hdf5_layout.hpp), and what falls in it is the
// selection cut to the chunk's box (BoxRegion::window), made when asked. Queries go chunk by
// chunk, in address order: the cost follows the chunks and writers they touch, not the runs.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "model/file_layout.hpp"
#include "selection/box_region.hpp"

namespace iosim {

class ChunkedRegion : public Region {
public:
    // `whole`: the selection in the dataset's coordinates (its base unused).
    ChunkedRegion(BoxRegion whole, const DatasetLayout& layout, uint64_t element_bytes);

    WriterExtent extent() const override { return extent_; }
    uint64_t bytes() const override { return whole_.bytes(); }
    uint64_t pieces() const override;
    uint64_t next_writer(uint64_t writer) const override { return whole_.next_writer(writer); }
    WriterExtent writer_extent(uint64_t writer) const override;
    void add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const override;
    void writer_pieces(uint64_t writer, const PieceFn& fn) const override;
    void cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const override;
    uint32_t last_writer() const override;
    uint32_t first_writer() const override;

private:
    // Chunk c's part of the selection; the last ones made are kept (a round's aggregators come
    // back to the chunks that hold their stripes).
    const BoxRegion& chunk(uint64_t c) const;
    BoxRegion cut(uint64_t c) const;
    // Chunks (row-major indices) that writer w's box meets, in address order.
    std::vector<uint64_t> chunks_of(uint64_t writer) const;
    // The chunks (row-major indices) from chunk coordinates `first` to `last` on every axis,
    // in address order.
    std::vector<uint64_t> chunks_by_address(const std::vector<uint64_t>& first,
                                            const std::vector<uint64_t>& last) const;

    BoxRegion whole_;
    const DatasetLayout& layout_;
    std::vector<uint64_t> chunk_dims_;  // the last in bytes
    std::vector<uint64_t> by_address_;  // chunks that meet the selection's bounds, by address
    WriterExtent extent_;
    static constexpr size_t kept_chunks = 1024;
    mutable std::unordered_map<uint64_t, BoxRegion> kept_;
};

}  // namespace iosim
