// Requests merged from contiguous writes: RPCs at the client and media requests at the target.
//
// Client (Lustre Operations Manual, "Lustre I/O Tunables": osc.*.max_pages_per_rpc and
// max_dirty_mb; the OSC's cache builds each write RPC from the dirty pages of one object, up to
// max_pages_per_rpc, not from each write call): what one client node writes back to back into
// one object leaves as RPCs of up to `rpc_max_bytes`, whatever the write calls were. So the
// records that consecutive ranks of one node write side by side in a shared file (IOR's
// interleaved records with ranks packed on nodes) cost a few full RPCs, not one RPC each.
// Target (the OST's I/O path: a bulk RPC's pages go down as one request per contiguous run,
// and the Linux block layer merges a request with a queued one it adjoins, up to the device's
// largest request, queue/max_sectors_kb): adjacent writes of different clients into one object
// within a phase reach the media as merged requests. The target's per-request cost
// (`rpc_overhead_s`, an HDD's positioning, an NVMe's command) is paid per merged request.
//
// Both are counted incrementally as pieces arrive in file order within a phase (what arrives
// out of order starts a new run: a bound from above on the requests).
#pragma once

#include <cstdint>

#include "fs/flat_map.hpp"

namespace iosim {

class RequestRuns {
public:
    explicit RequestRuns(uint64_t max_request_bytes) : max_(max_request_bytes) {}
    // The stream of the object that `key` names (a client's object, or a target's), until clear():
    // a caller that keeps it adds to the stream without looking its key up again.
    uint32_t stream(uint64_t key)
    {
        return static_cast<uint32_t>(runs_.try_emplace(key).first - runs_.values().data());
    }
    // `bytes` written at `offset` of `stream`'s object: the requests this adds (runs of
    // contiguous bytes, cut at the largest request).
    uint64_t add(uint32_t stream, uint64_t offset, uint64_t bytes);
    void clear() { runs_.clear(); }

private:
    struct Run {
        uint64_t end = 0;
        uint64_t bytes = 0;
    };
    uint64_t requests(uint64_t bytes) const { return (bytes + max_ - 1) / max_; }
    uint64_t max_;
    FlatMap<Run> runs_;  // stream -> its open run
};

}  // namespace iosim
