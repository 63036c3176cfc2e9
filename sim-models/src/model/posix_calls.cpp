#include "model/posix_calls.hpp"

#include <algorithm>

namespace iosim {

namespace {

size_t bin_of(uint64_t bytes)
{
    const auto& limits = PosixCalls::bin_limits;
    return static_cast<size_t>(std::upper_bound(limits.begin(), limits.end(), bytes) - limits.begin());
}

}  // namespace

void PosixCalls::write(uint64_t bytes, uint64_t calls)
{
    if (calls == 0)
        return;
    writes += calls;
    write_sizes[bin_of(bytes / calls)] += calls;
}

void PosixCalls::read(uint64_t bytes, uint64_t calls)
{
    reads += calls;
    read_bytes += bytes;
}

}  // namespace iosim
