// What one write call writes to one open file, asked about without holding its pieces: the
// MPI-IO layer needs each writer's extent and totals (ROMIO's interleave test, OMPIO's
// grouping), the bytes each writer has in an interval of the file (a round of an aggregator's
// file domain), and a writer's pieces in file order (independent writes, data sieving).
//
// A piece is a contiguous run of bytes one writer writes (access.hpp). A regular selection (a
// decomposition, a strided hyperslab: box_region.hpp) answers these in closed form, at a cost
// that does not grow with its pieces; a listed one (chunked datasets, the old path that
// materialises every piece: listed_region.hpp) walks its pieces.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "selection/access.hpp"

namespace iosim {

constexpr uint64_t no_offset = std::numeric_limits<uint64_t>::max();

// What falls in one interval of the file: bytes per writer, and the first and last byte covered.
class CoverSink {
public:
    virtual ~CoverSink() = default;
    // `count` writers first, first + step, ... (step 0: `first` count times) write `bytes`
    // each in the interval.
    virtual void writers(uint64_t first, uint64_t count, uint64_t step, uint64_t bytes) = 0;
    void covered(uint64_t from, uint64_t to)
    {
        first = std::min(first, from);
        end = std::max(end, to);
    }
    uint64_t first = no_offset, end = 0;
};

// [first, end) of what a writer writes; first == no_offset when nothing.
struct WriterExtent {
    uint64_t first = no_offset, end = 0;
    bool empty() const { return first == no_offset; }
};

using PieceFn = std::function<void(uint64_t offset, uint64_t length)>;

// Per aggregator, the state of its walk through a region (listed regions keep a cursor; a
// regular region answers from scratch).
struct CoverState {
    virtual ~CoverState() = default;
};

// Part of a call's pieces: one dataset's selection, its fill, or listed pieces.
class Region {
public:
    virtual ~Region() = default;
    virtual WriterExtent extent() const = 0;
    virtual uint64_t bytes() const = 0;
    virtual uint64_t pieces() const = 0;
    // The first writer at or after `writer` with pieces here; no_offset if none.
    virtual uint64_t next_writer(uint64_t writer) const = 0;
    virtual WriterExtent writer_extent(uint64_t writer) const = 0;
    // Bytes and pieces of every writer, added into the vectors (sized to the writers).
    virtual void add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const = 0;
    // Writer w's pieces in file order.
    virtual void writer_pieces(uint64_t writer, const PieceFn& fn) const = 0;
    virtual std::unique_ptr<CoverState> cover_state() const { return nullptr; }
    // What falls in [lo, hi), intervals of one aggregator coming in increasing order.
    virtual void cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const = 0;
    // The piece with the highest offset and the one with the lowest: their writers.
    virtual uint32_t last_writer() const = 0;
    virtual uint32_t first_writer() const = 0;
    // A contiguous dataset's pieces join the piece before them when one writer wrote both
    // (access.hpp append_touching, as dataset_accesses builds a call of several datasets).
    bool joins_previous = false;
};

// A call's pieces on one open file: its regions, in the order the call lists them, shifted
// by the instance's place in the address space.
class PieceSet {
public:
    PieceSet() = default;
    PieceSet(std::vector<std::shared_ptr<const Region>> regions, uint64_t writers, uint64_t shift);

    bool empty() const { return extent_.empty(); }
    WriterExtent extent() const { return extent_; }
    uint64_t bytes() const;
    uint64_t writers() const { return writers_; }
    // Every writer's first byte and the end of its last piece (file order), by writer.
    std::vector<WriterExtent> writer_extents() const;
    void writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const;
    // A writer, and a way to walk its pieces in file order (as often as it likes).
    using WriterFn = std::function<void(uint32_t writer, const std::function<void(const PieceFn&)>&)>;
    // Writers with pieces, in increasing order.
    void for_each_writer(const WriterFn& fn) const;

    // An aggregator's walk through the call: intervals in increasing order.
    class Cover {
    public:
        explicit Cover(const PieceSet& set);
        void cover(uint64_t lo, uint64_t hi, CoverSink& sink);

    private:
        const PieceSet& set_;
        std::vector<std::unique_ptr<CoverState>> states_;
        size_t first_ = 0;  // regions before it end before any interval still to come
    };

private:
    // for_each_writer() when the call has one region: its writers and pieces as they are.
    void for_each_writer_of(const Region& region, const WriterFn& fn) const;
    struct Junction {
        size_t region;  // joins the region before it
        uint32_t writer;
    };
    std::vector<std::shared_ptr<const Region>> regions_;
    std::vector<WriterExtent> extents_;  // per region
    std::vector<size_t> by_first_;  // region indices by first byte
    std::vector<uint64_t> end_before_;  // max end of regions by_first_[0..i]
    std::vector<Junction> junctions_;
    uint64_t writers_ = 0;
    uint64_t shift_ = 0;
    WriterExtent extent_;
};

}  // namespace iosim
