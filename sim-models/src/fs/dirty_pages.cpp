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

std::vector<uint64_t> DirtyPages::writeback_requests(std::vector<ObjectExtent> extents,
                                                    uint64_t max_request_bytes, size_t targets)
{
    auto object = [](const ObjectExtent& e) { return std::tie(e.target, e.node, e.file, e.component); };
    std::sort(extents.begin(), extents.end(), [&](const ObjectExtent& a, const ObjectExtent& b) {
        return std::tuple_cat(object(a), std::tie(a.begin)) < std::tuple_cat(object(b), std::tie(b.begin));
    });
    std::vector<uint64_t> requests(targets, 0);
    auto close_run = [&](int target, uint64_t bytes) {
        requests[static_cast<size_t>(target)] += (bytes + max_request_bytes - 1) / max_request_bytes;
    };
    for (size_t i = 0; i < extents.size();) {
        const ObjectExtent& first = extents[i];
        uint64_t begin = first.begin, end = first.end;
        for (i++; i < extents.size() && object(extents[i]) == object(first); i++) {
            if (extents[i].begin > end) {  // a gap: the run before it is written back alone
                close_run(first.target, end - begin);
                begin = extents[i].begin;
            }
            end = std::max(end, extents[i].end);
        }
        close_run(first.target, end - begin);
    }
    return requests;
}

uint64_t DirtyPages::folio_bytes(uint64_t length, uint64_t page_bytes, uint64_t max_folio_bytes)
{
    uint64_t folio = page_bytes;
    while (folio * 2 <= length && folio * 2 <= max_folio_bytes)
        folio *= 2;
    return folio;
}

}  // namespace iosim
