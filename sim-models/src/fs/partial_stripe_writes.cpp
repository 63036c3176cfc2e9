#include "fs/partial_stripe_writes.hpp"

namespace iosim {

double partial_stripe_write_s(const FileSystem& fs)
{
    switch (fs.target_raid) {
    case TargetRaid::parity:
        return fs.read_modify_write_passes * fs.rpc_overhead_s;
    case TargetRaid::cached_array:
        return fs.cache_write_s;
    case TargetRaid::none:
        break;
    }
    return fs.rpc_overhead_s;
}

}  // namespace iosim
