// The Lustre client's write range locks: how the processes of one node writing one file wait
// for each other before any extent lock is asked for.
//
// Lustre's client (llite, `ll_file_io_generic`) takes, for each write call, a range lock in the
// file's per-node range-lock tree over the pages the call touches (the first byte's page index
// to the last byte's: `range_lock_init` shifts both by PAGE_SHIFT), and holds it while the call
// goes through the client's I/O stack (`cl_io_loop`: the page copies, the extent lock match or
// enqueue). A call whose pages overlap a held range waits for it. Clients before range locks
// (Linux staging Lustre before 4.9) held one write mutex per file (`lli_write_mutex`) instead:
// every write of a node to the file one after the other. Facts from the Lustre client sources;
// and as a Lustre developer put it on lustre-discuss (reply to "server-based extent locking",
// 2009-11-19): the DLM locks are held by nodes, not processes, so processes of one node do not
// contend for them, and their writes are serialized by the node's kernel instead. The cost of
// one held call is a family constant, not a published figure.
//
// What follows for the model: two calls of one node share a page only where a record does not
// end on a page boundary (IOR hard-write's 47,008-byte records: each shares its first and last
// pages with its neighbours), and a node's calls linked through shared pages pass the range
// lock one at a time, each for `locked_write_s` (one process's own calls follow one another
// anyway: only calls of different processes are linked). A node's linked calls of a phase are taken as
// one chain (an upper bound: calls at the two ends of a long chain could overlap in time), so
// the phase's writers wait at least for the longest node's linked calls one after another.
// Calls of different nodes never meet here (each node keeps its own tree; the extent locks
// order them: extent_locks.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "fs/flat_map.hpp"

namespace iosim {

class ClientRangeLocks {
public:
    // `page_bytes` 0: the client takes no range locks (a GPFS client, or no Lustre client).
    explicit ClientRangeLocks(uint64_t page_bytes) : page_bytes_(page_bytes) {}
    // One write call of `process` on `client` (a node) to [offset, end) of the phase's file.
    void write(int client, int process, uint64_t offset, uint64_t end);
    // The most calls of one node linked to another of its calls through a shared page.
    uint64_t longest_chain() const { return longest_chain_; }
    void end_phase();

private:
    struct PageWriter {
        int client, process;
        uint64_t call;
    };
    void share(int client, int process, uint64_t page);
    void count(int client, uint64_t call);

    uint64_t page_bytes_;
    FlatMap<PageWriter> first_writer_;   // partial page -> the first call that wrote it
    std::vector<bool> linked_;           // call this phase -> counted in its node's chain (the
                                         // current call is the last)
    std::vector<uint64_t> chain_;        // client -> its linked calls
    uint64_t longest_chain_ = 0;
};

}  // namespace iosim
