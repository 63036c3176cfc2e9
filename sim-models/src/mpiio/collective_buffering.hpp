// Collective buffering, the two-phase write both ROMIO and OMPIO do: aggregators own file
// domains; in each round (cycle) the ranks ship the data that falls in an aggregator's next
// buffer-full of its domain to it (shuffle), and the aggregator writes it. How many
// aggregators, which ranks, and how the domains are cut are the implementation's choices
// (romio.cpp, ompio.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "mpiio/mpi_io.hpp"

namespace iosim {

// The file intervals an aggregator owns in successive rounds.
class FileDomain {
public:
    virtual ~FileDomain() = default;
    // Next round's intervals of aggregator `a`; false when its domain is exhausted.
    virtual bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) = 0;
};

// [lo, hi) split evenly over `naggs`, boundaries aligned up to `align`: aggregator a's range.
std::vector<std::pair<uint64_t, uint64_t>> even_ranges(uint64_t lo, uint64_t hi, int naggs, uint64_t align);

// Aggregator a owns ranges[a]; `per_round` bytes of it a round.
std::unique_ptr<FileDomain> ranges_domain(const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                                          uint64_t per_round);

// even_ranges(lo, hi, naggs, align), `per_round` bytes of each a round.
std::unique_ptr<FileDomain> contiguous_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t align,
                                              uint64_t per_round);

// Unit i of `unit` bytes belongs to aggregator i mod naggs. A round takes the next `per_round`
// bytes of an aggregator's units, or with `whole_units` as many whole units as fit in it (at
// least one).
std::unique_ptr<FileDomain> unit_cyclic_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t unit,
                                               uint64_t per_round, bool whole_units);

// One file's collective buffering for one call: its aggregators (writer indices) and domains.
struct BufferingPlan {
    std::vector<int> aggregators;
    std::unique_ptr<FileDomain> domain;
    // A round that holds data writes its whole interval, holes included (reading it first when
    // there are holes); else only from the round's first byte of data to its last.
    bool whole_rounds = false;
};

// The plan for a file, given the call's byte range [lo, hi) in it and its pieces.
using PlanFile = std::function<BufferingPlan(const OpenFile& f, uint64_t lo, uint64_t hi, const PieceSet& pieces)>;

// How the rounds go: `exchange_collective`: a round's shuffle starts with a collective step
// (an all-to-all of the sizes each rank sends), else point-to-point messages only; `overlap`:
// round i's shuffle runs while round i-1's data is written, else each round shuffles, then
// writes.
struct RoundStyle {
    bool exchange_collective = true;
    bool overlap = false;
};

// The rounds of a collectively buffered call.
void buffered_write(const MpiIoContext& ctx, const WriteCall& call, const PlanFile& plan, RoundStyle style);

}  // namespace iosim
