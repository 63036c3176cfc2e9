// ROMIO's write paths for one MPI_File_write_all / write_at call: two-phase collective
// buffering (aggregators, file domains, cb_buffer_size rounds, shuffle) and independent writes
// (with or without data sieving). Each emits phases to a sink as it goes, so a run of any
// length never holds more than one round in memory.
#pragma once

#include <functional>
#include <vector>

#include "access.hpp"
#include "model.hpp"
#include "striping.hpp"

namespace iosim {

using PhaseSink = std::function<void(Phase&&)>;

// One open file (an instance of a file session) as ROMIO sees it.
struct OpenFile {
    const FileSettings* settings;
    Striping striping;
    std::vector<int> node_of_writer;  // writer index -> node
    std::vector<int> rank_of_writer;  // writer index -> global rank
    LockHolders* holders;
};

struct WriteCall {
    std::vector<OpenFile*> files;            // concurrently written instances
    std::vector<std::vector<Access>> accesses;  // per instance, sorted by offset
    bool collective = true;
};

struct RomioContext {
    const Platform& platform;
    bool aggregate;  // merge the ranks of a node into one flow
    int total_ranks;
    Breakdown& breakdown;
    PhaseSink sink;
};

// Aggregator writers as ROMIO picks them (cb_config_list, cb_nodes, driver defaults).
std::vector<int> choose_aggregators(const Platform& p, const FileSettings& s, const std::vector<int>& node_of_writer,
                                    int stripe_count);

// Does any writer's range [first, last] overlap another's (ROMIO's "automatic" test)?
bool interleaved(const std::vector<Access>& sorted);

void romio_write(const RomioContext& ctx, const WriteCall& call);

double collective_overhead_s(const Platform& p, int ranks);

// The collective steps of one collective MPI-IO write call, buffered or not.
double collective_write_call_s(const Platform& p, int ranks, double oversubscription);

// Ranks beyond a node's cores wait for a time slice in every collective step.
double oversubscription(const Platform& p, const std::vector<int>& node_of_rank);

}  // namespace iosim
