#include "mpiio/first_touch.hpp"

#include <algorithm>

namespace iosim {

namespace {

// Seconds to write a buffer's bytes [from, to) for the first time (the platform gives a rate).
double first_touch_s(const Network& n, uint64_t from, uint64_t to)
{
    uint64_t cold_from = std::max(from, n.first_touch_warm_bytes);
    return to > cold_from ? static_cast<double>(to - cold_from) / n.first_touch_Bps : 0;
}

}  // namespace

double fresh_buffer_s(const Network& n, uint64_t bytes)
{
    return n.first_touch_Bps > 0 ? first_touch_s(n, 0, bytes) : static_cast<double>(bytes) / n.memcpy_Bps;
}

double SessionBuffers::fill(const Network& n, int owner, uint64_t filled)
{
    if (n.first_touch_Bps <= 0)
        return 0;
    uint64_t& touched = touched_[owner];
    double seconds = first_touch_s(n, touched, filled);
    touched = std::max(touched, filled);
    return seconds;
}

}  // namespace iosim
