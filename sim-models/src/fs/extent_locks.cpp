#include "fs/extent_locks.hpp"

namespace iosim {

ExtentLocks::Grant ExtentLocks::acquire(int client, uint64_t offset, uint64_t unit_bytes, uint64_t round,
                                        uint64_t object)
{
    uint64_t start = offset - offset % unit_bytes;
    int& latest = *last_granted_.try_emplace(UnitRound{start, round}, -1).first;
    for (int g = latest; g >= 0; g = granted_[static_cast<size_t>(g)].previous)
        if (granted_[static_cast<size_t>(g)].client == client)
            return {false, granted_[static_cast<size_t>(g)].revoked};  // the node's client has it: its processes share the grant
    Unit& unit = touched_[start];
    if (unit.first < 0)
        unit.first = client;
    else if (unit.first != client)
        unit.shared = true;
    auto [held, fresh] = holders_->units.try_emplace(start, client);
    bool revokes = (!fresh && *held != client) || (unit.shared && unit.first != client) ||
                   (unit.shared && round > 0);
    *held = client;
    if (expanded_grants_) {
        auto [grantee, first_grant] = holders_->objects.try_emplace(object, client);
        revokes = revokes || (fresh && !first_grant && *grantee != client);
        *grantee = client;
    }
    granted_.push_back({client, revokes, latest});
    latest = static_cast<int>(granted_.size() - 1);
    return {revokes, revokes};
}

void ExtentLocks::end_phase()
{
    touched_.clear();
    last_granted_.clear();
    granted_.clear();
}

}  // namespace iosim
