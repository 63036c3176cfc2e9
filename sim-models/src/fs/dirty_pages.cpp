#include "fs/dirty_pages.hpp"

#include <algorithm>
#include <iterator>

namespace iosim {

uint64_t DirtyPages::overwritten(const ObjectExtent& extent)
{
    std::map<uint64_t, uint64_t>& runs = runs_[{extent.node, extent.file, extent.component, extent.target}];
    uint64_t merged_begin = extent.begin, merged_end = extent.end, overlap = 0;
    // The first run that may touch the extent: the last one that starts at or before it.
    auto it = runs.upper_bound(extent.begin);
    if (it != runs.begin() && std::prev(it)->second >= extent.begin)
        --it;
    // Every run that overlaps or adjoins the extent merges with it into one.
    for (; it != runs.end() && it->first <= extent.end; it = runs.erase(it)) {
        uint64_t from = std::max(extent.begin, it->first), to = std::min(extent.end, it->second);
        overlap += to > from ? to - from : 0;
        merged_begin = std::min(merged_begin, it->first);
        merged_end = std::max(merged_end, it->second);
    }
    runs.emplace(merged_begin, merged_end);
    return overlap;
}

}  // namespace iosim
