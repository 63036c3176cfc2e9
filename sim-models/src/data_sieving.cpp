#include "data_sieving.hpp"

#include <algorithm>

namespace iosim {

namespace {

uint64_t windows_for(uint64_t bytes, uint64_t buffer)
{
    return (bytes + buffer - 1) / buffer;
}

}  // namespace

std::vector<SieveRun> sieve_runs(const std::vector<SievePiece>& pieces, uint64_t buffer_bytes)
{
    std::vector<SieveRun> runs;
    if (pieces.empty() || buffer_bytes == 0)
        return runs;
    uint64_t access_end = 0;
    for (const auto& p : pieces)
        access_end = std::max(access_end, p.offset + p.length);
    uint64_t window_end = 0;  // end of the last window opened
    for (const auto& p : pieces) {
        if (p.length == 0)
            continue;
        uint64_t end = p.offset + p.length;
        if (!runs.empty() && p.offset < window_end) {  // starts inside the open window
            if (end <= window_end)
                continue;
            uint64_t more = windows_for(end - window_end, buffer_bytes);
            window_end = std::min(window_end + more * buffer_bytes, access_end);
            runs.back().windows += more;
        } else {  // a window opens at the piece
            uint64_t count = windows_for(p.length, buffer_bytes);
            if (runs.empty() || p.offset != window_end)
                runs.push_back({p.offset, 0, 0});
            window_end = std::min(p.offset + count * buffer_bytes, access_end);
            runs.back().windows += count;
        }
        runs.back().length = window_end - runs.back().offset;
    }
    return runs;
}

}  // namespace iosim
