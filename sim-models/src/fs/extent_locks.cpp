#include "fs/extent_locks.hpp"

namespace iosim {

ExtentLocks::Grant ExtentLocks::acquire(int client, uint64_t offset, uint64_t unit_bytes, uint64_t round)
{
    uint64_t start = offset - offset % unit_bytes;
    auto& granted = granted_[RoundKey{start, round}];
    for (const auto& [holder, revoked] : granted)
        if (holder == client)
            return {false, revoked};  // the node's client has it: its processes share the grant
    Unit& unit = touched_[start];
    if (unit.first < 0)
        unit.first = client;
    else if (unit.first != client)
        unit.shared = true;
    auto [held, fresh] = holders_.try_emplace(start, client);
    bool revokes = (!fresh && held->second != client) || (unit.shared && unit.first != client) ||
                   (unit.shared && round > 0);
    held->second = client;
    granted.emplace_back(client, revokes);
    return {revokes, revokes};
}

void ExtentLocks::end_phase()
{
    touched_.clear();
    granted_.clear();
}

}  // namespace iosim
