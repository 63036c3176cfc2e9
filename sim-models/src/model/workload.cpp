#include "model/workload.hpp"

namespace iosim {

std::vector<uint64_t> Dataset::dims() const
{
    std::vector<uint64_t> d;
    for (const auto& axis : extents) {
        uint64_t sum = 0;
        for (uint64_t e : axis)
            sum += e;
        d.push_back(sum);
    }
    return d;
}

uint64_t Dataset::bytes() const
{
    uint64_t n = element_bytes;
    for (uint64_t d : dims())
        n *= d;
    return n;
}

uint64_t Dataset::writers() const
{
    uint64_t n = 1;
    for (uint64_t g : grid)
        n *= g;
    return n;
}

void Dataset::block(uint64_t writer, std::vector<uint64_t>& start, std::vector<uint64_t>& count) const
{
    size_t nd = grid.size();
    start.assign(nd, 0);
    count.assign(nd, 0);
    for (size_t a = nd; a-- > 0;) {
        uint64_t slot = writer % grid[a];
        writer /= grid[a];
        count[a] = extents[a][slot];
        start[a] = starts[a][slot];
    }
}

std::vector<uint64_t> IoCall::origin_at(size_t i, uint64_t k) const
{
    std::vector<uint64_t> origin = selections[i].origin;
    for (size_t a = 0; a < origin.size() && a < origin_step.size(); a++)
        origin[a] = static_cast<uint64_t>(static_cast<long long>(origin[a]) + static_cast<long long>(k) * origin_step[a]);
    return origin;
}

int FileSession::instances(int ranks) const
{
    switch (mode) {
    case FileMode::per_rank: return ranks;
    case FileMode::groups: return groups;
    default: return 1;
    }
}

int FileSession::writers_per_instance(int ranks) const
{
    return ranks / instances(ranks);
}

}  // namespace iosim
