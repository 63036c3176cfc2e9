#include "extent_locks.hpp"

namespace iosim {

bool ExtentLocks::revokes(int client, uint64_t offset, uint64_t unit_bytes)
{
    uint64_t unit = offset - offset % unit_bytes;
    auto [it, first] = touched_.try_emplace(unit, client);
    bool conflict = !first && it->second != client;
    auto held = holders_.find(unit);
    if (first && held != holders_.end() && held->second != client)
        conflict = true;
    holders_[unit] = client;
    return conflict;
}

}  // namespace iosim
