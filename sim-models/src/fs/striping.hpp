// Lustre/GPFS placement of file bytes on storage targets, and the builder of one write phase:
// every piece a client node writes, mapped onto targets, merged into RPCs and media requests
// (request_merging.hpp), with the revocations of extent locks it causes and the waits they
// cost its writers (extent_locks.hpp).
#pragma once

#include <cstdint>
#include <vector>
#include <utility>

#include "fs/extent_locks.hpp"
#include "fs/request_merging.hpp"
#include "fs/client_range_locks.hpp"
#include "fs/token_server.hpp"
#include "model/model.hpp"

namespace iosim {

// A component of a file's layout on the storage targets (lustre_layout.hpp): its bytes up to
// `end`, striped from the file's start over `count` targets of a pool, from the pool's target
// `start` on; or all on one metadata target (Data-on-MDT).
struct StripeExtent {
    uint64_t end = UINT64_MAX;
    int count = 1;
    uint64_t size = 1;
    int start = 0;                       // within the pool
    int pool_first = 0, pool_targets = 1;
    int mdt = -1;                        // >= 0: the storage target of a Data-on-MDT extent
    int target_of(uint64_t offset) const
    {
        if (mdt >= 0)
            return mdt;
        return target_of_slot(offset / size % static_cast<uint64_t>(count));
    }
    // The target of the stripe at `slot` of a cycle (below `count`).
    int target_of_slot(uint64_t slot) const
    {
        uint64_t t = static_cast<uint64_t>(start) + slot, pool = static_cast<uint64_t>(pool_targets);
        return pool_first + static_cast<int>(t < pool ? t : t % pool);
    }
};

struct Striping {
    int count = 1;        // the pattern the MPI-IO layer sees (GPFS: every target, by block)
    uint64_t size = 1;
    std::vector<StripeExtent> extents;  // in file order; the last ends at UINT64_MAX
    const StripeExtent& at(uint64_t offset) const
    {
        size_t i = 0;
        while (offset >= extents[i].end)
            i++;
        return extents[i];
    }
    int target_of(uint64_t offset) const { return at(offset).target_of(offset); }
};

Striping file_striping(const Platform& p, const FileSettings& s, int instance);

// Kept from phase to phase (its maps and tables keep their room): finish() readies it for the
// next phase, bind() for another file.
class WritePhaseBuilder {
public:
    WritePhaseBuilder(const Platform& p, Breakdown& bd);
    // The file the next phase writes (between phases only): its layout, its lock holders and
    // its id (OpenFile::id).
    void bind(const Striping& st, LockHolders& holders, uint64_t file);
    // `client` is the lock owner and the OST's stream (a node's Lustre client); `key` merges
    // pieces into one flow (the node, or the rank when nothing is aggregated); `process` is
    // the rank that issues the write.
    void add(int client, int key, int process, uint64_t offset, uint64_t length, double extra_busy_s = 0);
    Phase finish(const std::string& label, double fixed_s);

private:
    // `bytes` at `object_offset` of the object of layout component `component` on `target`.
    void add_to_target(int client, int key, int target, int component, uint64_t object_offset, uint64_t bytes);
    void add_extent(int client, int key, int component, const StripeExtent& e, uint64_t offset, uint64_t end);
    uint64_t lock_unit(uint64_t offset) const;
    Flow& flow(int client, int key, int target);
    // Per target: the current key's flow, and the request runs last written there, each with
    // the object it is for (a piece's stripes go to many targets: an array read a stripe, not
    // two hash probes).
    struct TargetSlot {
        int flow = -1;  // index in flows_ for the current key, -1 if none
        int rpc_client = -1, rpc_component = -1;
        uint32_t rpc_run = 0;  // client_rpcs_'s stream of (rpc_client, the object)
        int media_component = -1;
        uint32_t media_run = 0;  // media_requests_'s stream of the object
    };
    // What add_to_target() writes to at `target`: the key's flow, the client's RPC run and the
    // target's media run for the object of `component` there.
    TargetSlot& slot(int client, int key, int target, int component);
    void lock_boundary(int client, int process, uint64_t offset);
    void count_process_write(int client, int process, uint64_t bytes);
    void count_node_write(int client, bool new_writer, uint64_t bytes);
    double contended_write_s() const;
    // Where the platform's cache keeps overwrites in place: the object bytes written.
    void note_extent(int client, int target, int component, uint64_t object_offset, uint64_t bytes);
    void charge_writeback();

    const Platform& platform_;
    const Striping* striping_ = nullptr;
    uint64_t file_ = 0;
    std::vector<ObjectExtent> extents_;  // the phase's, adjacent ones merged
    std::vector<double> folios_;  // a page cache's: target -> the folios the phase's writes make there
    uint64_t write_folio_bytes_ = 4096;  // a page cache's: the folio the current write call makes
    ExtentLocks locks_;
    TokenServer token_server_;    // GPFS: the file's token server (token_server.hpp)
    ClientRangeLocks range_locks_;  // Lustre: each node's range locks of the file (client_range_locks.hpp)
    double revocation_s_ = 0;     // one revocation: the callback round trip (GPFS: the token request) and the holder's flush (partial_stripe_writes.hpp)
    RequestRuns client_rpcs_;     // per client node and object: its RPCs
    RequestRuns media_requests_;  // per object: what reaches the target's media
    Breakdown& breakdown_;
    // Flows in order of creation, each with its key; a key's flow per target is found through
    // slots_ while the key is current (pieces come key by key). A key that comes back gets new
    // flows, merged with its earlier ones by finish().
    std::vector<Flow> flows_;
    std::vector<int> flow_key_;
    std::vector<size_t> order_;  // finish()'s scratch
    int current_key_ = -1;
    std::vector<TargetSlot> slots_;  // by target
    std::vector<int> slotted_;  // targets whose flow is set
    std::vector<int> written_;  // targets whose runs are set this phase
    std::vector<uint64_t> process_bytes_;  // process -> bytes it writes this phase
    std::vector<uint64_t> process_calls_;  // process -> write calls it makes this phase
    std::vector<uint64_t> process_waits_;  // process -> lock waits of its writes this phase
    std::vector<int> processes_;           // processes whose process_bytes_ is set
    // A contended client's (contended_writes.hpp): per client node, its processes writing this
    // phase and their bytes; the nodes whose counts are set.
    std::vector<uint32_t> node_writers_;
    std::vector<uint64_t> node_bytes_;
    std::vector<int> writing_nodes_;
    uint64_t max_process_waits_ = 0;
    // Target -> revocations of the file's object there this phase: one after another (extent_locks.hpp),
    // unless a token server serves them all.
    std::vector<uint64_t> object_revocations_;
    std::vector<int> revoked_objects_;
    uint64_t longest_object_chain_ = 0;
    uint64_t max_process_bytes_ = 0;
    uint64_t max_process_calls_ = 0;
};

}  // namespace iosim
