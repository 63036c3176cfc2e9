// Extent locks of a shared file: Lustre's LDLM extent locks and GPFS's byte-range tokens, as
// the waits they cost the writers.
//
// Lustre (Lustre Operations Manual, "Lustre File Locking" / LDLM; Liao and Choudhary, SC 2008,
// on lock-aligned file domains): a client node writes a range of an object under a PW extent
// lock that the OST's lock server grants to the node (its OSC), expanded beyond the range asked
// for as far as no other granted lock conflicts. A node asking for a range another node holds
// waits while the server sends the holder a blocking callback, the holder writes back its dirty
// pages under the lock and cancels it, and the server grants the new request, expanded in turn.
// Where several nodes write one object, each grant is expanded over the object up to the others'
// locks, so the next node's write conflicts with it: the object's locks pass from node to node,
// one revocation after another (the false conflicts of lock expansion). The first unit of
// conflict is the stripe (a node writing a whole stripe alone takes it without conflict).
// GPFS (Schmuck and Haskin, FAST 2002, section 3.2): byte-range tokens from the token server,
// rounded to block boundaries (the block is also the unit of allocation), so that nodes writing
// different bytes of one block conflict ("false sharing"); a node whose write needs a token
// another node holds waits for its revocation (the holder flushes its dirty data of the range).
//
// What follows for the model: a lock unit (stripe, block) changes hands once per node that
// writes it in a round of a phase (the k-th write call of each process: a node's client caches
// the writes its processes make together under one grant; a process's next call finds the unit
// taken again by the nodes that wrote it meanwhile), each change one revocation: the callback
// round trip (`lock_conflict_s`) and the holder's write-back of its dirty pages, one request at
// the unit's target (`rpc_overhead_s`). Every process of the node that writes the unit in that
// round waits for it. The revocations of one object (a Lustre OST object; GPFS: a block's disk)
// follow one another; those of different objects go on at once. The writers wait; the target's
// data path does not. Only the units a piece does not cover whole can be shared: a piece's
// partial first and last units (a unit a piece covers whole is taken by that node alone within
// the piece). Writers are walked one after another, not in time: the first node walked into a
// unit takes it without a wait in the phase, every other one with a wait in each of its rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fs/flat_map.hpp"

namespace iosim {

// A lock unit (named by its first byte) in the k-th write call of each process of a phase.
struct UnitRound {
    uint64_t unit, round;
    bool operator==(const UnitRound& o) const { return unit == o.unit && round == o.round; }
};
inline uint64_t flat_hash(const UnitRound& k) { return flat_hash(k.unit ^ flat_hash(k.round)); }

// Who last held each lock unit of a file, and each object's latest grantee, across the phases
// of one file session.
struct LockHolders {
    FlatMap<int> units;
    FlatMap<int> objects;
};

class ExtentLocks {
public:
    struct Grant {
        bool revokes = false;  // this write takes the unit from another client (a new revocation)
        bool waits = false;    // the writer waits for a revocation (its own, or its node's)
    };
    explicit ExtentLocks(bool expanded_grants = false) : expanded_grants_(expanded_grants) {}
    // The file whose locks are taken from now on (between phases only).
    void bind(LockHolders& holders) { holders_ = &holders; }
    // `client` writing, in its `round`-th write call of the phase, the lock unit of `unit_bytes`
    // that holds `offset`: a revocation the first time in the round that the client needs the
    // unit while another client holds it or has written it in the phase; a wait for every write
    // of the client into a unit it got that way in the round. (Units are named by their first
    // byte: a progressive layout's components have units of their own stripe sizes.) `object`
    // names the unit's object (its target and layout component).
    Grant acquire(int client, uint64_t offset, uint64_t unit_bytes, uint64_t round, uint64_t object);
    void end_phase();

private:
    struct Unit {
        int first = -1;     // the first client to write it this phase
        bool shared = false;  // written by another client too
    };
    // A client granted a unit in a round, and the grant before it of the same (unit, round).
    struct Granted {
        int client;
        bool revoked;
        int previous;  // -1: none
    };
    bool expanded_grants_;
    LockHolders* holders_ = nullptr;
    FlatMap<Unit> touched_;  // lock unit -> who wrote it this phase
    FlatMap<int, UnitRound> last_granted_;  // (unit, round) -> its latest entry of granted_
    std::vector<Granted> granted_;
};

}  // namespace iosim
