// ROMIO's data-sieving write of a noncontiguous independent access (ADIOI_GEN_WriteStrided in
// adio/common/ad_write_str.c, and ADIOI_LUSTRE_WriteStrided, through the ADIOI_BUFFERED_WRITE
// macro): a window of ind_wr_buffer_size bytes is read, the requested pieces inside it are
// copied in, and it is written back. A piece that starts past the window flushes it and opens
// the next window at that piece's offset; a piece longer than the window is carried through
// window after window. Every window is min(ind_wr_buffer_size, end of the access - its start)
// long. So a rank moves, read and written, only the windows at its pieces, never a gap wider
// than a window: the traffic is linear in the bytes it writes, whatever the file's size.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace iosim {

// Windows that follow each other without a gap, as one extent: what one rank reads and
// writes back, and how many windows (one read and one write each) it took.
struct SieveRun {
    uint64_t offset = 0, length = 0, windows = 0;
};

struct SievePiece {
    uint64_t offset, length;
};

// The runs of windows that sieve pieces given one by one in file order (not overlapping),
// each run handed on when the next one starts: a rank's pieces need not be held at once.
class SieveWindows {
public:
    // `access_end`: the end of the rank's last piece (no window reaches past it).
    SieveWindows(uint64_t buffer_bytes, uint64_t access_end, std::function<void(const SieveRun&)> emit);
    void add(const SievePiece& p);
    void finish();

private:
    uint64_t buffer_, access_end_;
    std::function<void(const SieveRun&)> emit_;
    SieveRun run_;
    bool open_ = false;
    uint64_t window_end_ = 0;  // end of the last window opened
};

// The runs of windows that sieve `pieces` (in file order, not overlapping) with a buffer of
// `buffer_bytes`.
std::vector<SieveRun> sieve_runs(const std::vector<SievePiece>& pieces, uint64_t buffer_bytes);

}  // namespace iosim
