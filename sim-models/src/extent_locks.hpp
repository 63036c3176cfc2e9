// Extent locks of a shared file: Lustre's LDLM extent locks (one lock unit per stripe, granted
// to a client node and revoked when another node writes into it: Lustre Operations Manual,
// "Lustre File Locking"; Liao and Choudhary, SC 2008, on lock-aligned file domains) and GPFS's
// byte-range tokens (one unit per file system block, the token server revoking a token another
// node holds: Schmuck and Haskin, FAST 2002, section 3.2). Only the units a piece does not
// cover whole can be shared: a piece's partial first and last units.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace iosim {

// Who last held each lock unit of a file, across the phases of one file session.
using LockHolders = std::unordered_map<uint64_t, int>;

class ExtentLocks {
public:
    explicit ExtentLocks(LockHolders& holders) : holders_(holders) {}

    // Whether `client` writing the lock unit of `unit_bytes` that holds `offset` revokes a
    // lock: the second client to touch the unit in a phase, or a client other than the one
    // that held it last. (Units are named by their first byte: a progressive layout's
    // components have units of their own stripe sizes.)
    bool revokes(int client, uint64_t offset, uint64_t unit_bytes);
    void end_phase() { touched_.clear(); }

private:
    LockHolders& holders_;
    std::unordered_map<uint64_t, int> touched_;  // lock unit -> first client this phase
};

}  // namespace iosim
