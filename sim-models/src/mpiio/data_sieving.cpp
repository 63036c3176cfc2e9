#include "mpiio/data_sieving.hpp"

#include <algorithm>

namespace iosim {

namespace {

uint64_t windows_for(uint64_t bytes, uint64_t buffer)
{
    return (bytes + buffer - 1) / buffer;
}

}  // namespace

SieveWindows::SieveWindows(uint64_t buffer_bytes, uint64_t access_end, std::function<void(const SieveRun&)> emit)
    : buffer_(buffer_bytes), access_end_(access_end), emit_(std::move(emit))
{
}

void SieveWindows::add(const SievePiece& p)
{
    if (p.length == 0 || buffer_ == 0)
        return;
    uint64_t end = p.offset + p.length;
    if (open_ && p.offset < window_end_) {  // starts inside the open window
        if (end <= window_end_)
            return;
        uint64_t more = windows_for(end - window_end_, buffer_);
        window_end_ = std::min(window_end_ + more * buffer_, access_end_);
        run_.windows += more;
    } else {  // a window opens at the piece
        uint64_t count = windows_for(p.length, buffer_);
        if (!open_ || p.offset != window_end_) {
            if (open_)
                emit_(run_);
            run_ = {p.offset, 0, 0};
            open_ = true;
        }
        window_end_ = std::min(p.offset + count * buffer_, access_end_);
        run_.windows += count;
    }
    run_.length = window_end_ - run_.offset;
}

void SieveWindows::finish()
{
    if (open_)
        emit_(run_);
    open_ = false;
}

std::vector<SieveRun> sieve_runs(const std::vector<SievePiece>& pieces, uint64_t buffer_bytes)
{
    std::vector<SieveRun> runs;
    uint64_t access_end = 0;
    for (const auto& p : pieces)
        access_end = std::max(access_end, p.offset + p.length);
    SieveWindows windows(buffer_bytes, access_end, [&](const SieveRun& r) { runs.push_back(r); });
    for (const auto& p : pieces)
        windows.add(p);
    windows.finish();
    return runs;
}

}  // namespace iosim
