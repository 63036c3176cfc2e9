#include "mpiio/romio_rounds.hpp"

#include <utility>
#include <vector>

namespace iosim {

namespace {

// The first and last byte written in an interval, and nothing else.
class DataExtent : public CoverSink {
public:
    void writers(uint64_t, uint64_t, uint64_t, uint64_t) override {}
};

}  // namespace

std::unique_ptr<FileDomain> romio_rounds_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t align,
                                                uint64_t per_round, const PieceSet& pieces)
{
    std::vector<std::pair<uint64_t, uint64_t>> ranges = even_ranges(lo, hi, naggs, align);
    PieceSet::Cover walk(pieces);
    for (auto& [start, end] : ranges) {
        DataExtent data;
        walk.cover(start, end, data);
        if (data.first == no_offset) {  // nothing written here: no rounds
            end = start;
            continue;
        }
        start = data.first;
        end = data.end;
    }
    return ranges_domain(ranges, per_round);
}

}  // namespace iosim
