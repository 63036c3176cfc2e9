// The MPI-IO layer under HDF5: one MPI_File_write_all / write_at call on the open files, as the
// implementation the program runs under writes it (ROMIO: romio.hpp; Open MPI's OMPIO:
// ompio.hpp). What both share is here: the call's collective steps and independent writes.
// Each emits phases to a sink as it goes, so a run of any length never holds more than one
// round in memory.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "fs/striping.hpp"
#include "fs/target_rotation.hpp"
#include "model/model.hpp"
#include "mpiio/first_touch.hpp"
#include "selection/pieces.hpp"

namespace iosim {

using PhaseSink = std::function<void(Phase&&)>;
// A block of phases run `times` times over (a call's periodic repetitions, repeat_fold.hpp),
// each time its targets moved one step of the rotation further.
using BlockSink = std::function<void(const std::vector<Phase>&, uint64_t times, const TargetRotation&)>;

// One open file (an instance of a file session) as the MPI-IO layer sees it.
struct OpenFile {
    uint64_t id = 0;  // its session's index and its instance: one per file of the run
    const FileSettings* settings;
    Striping striping;
    std::vector<int> node_of_writer;  // writer index -> node
    std::vector<int> rank_of_writer;  // writer index -> global rank
    std::vector<uint32_t> node_run_end;  // writer index -> first later writer on another node
    LockHolders* holders;
    bool library = true;  // its library takes a step of its own in a collective call (IoLibrary)
    SessionBuffers buffers;  // its aggregators' collective buffers, as far as touched
};

struct WriteCall {
    std::vector<OpenFile*> files;            // concurrently written instances
    std::vector<PieceSet> pieces;            // per instance
    bool collective = true;
};

// The write-phase builders of one simulation, kept from call to call so that their maps and
// tables are not built again for each: the i-th file that a call writes at once gets the i-th.
class WriteBuilders {
public:
    WriteBuilders(const Platform& p, Breakdown& bd) : platform_(p), breakdown_(bd) {}
    WritePhaseBuilder& bound(size_t i, const OpenFile& f);

private:
    const Platform& platform_;
    Breakdown& breakdown_;
    std::vector<std::unique_ptr<WritePhaseBuilder>> builders_;
};

struct MpiIoContext {
    const Platform& platform;
    bool aggregate;  // merge the ranks of a node into one flow
    int total_ranks;
    double oversubscription;  // of the run's placement (oversubscription())
    Breakdown& breakdown;
    PhaseSink sink;
    bool walk_pieces = false;  // PlanOptions::walk_pieces
    BlockSink blocks;  // empty: a block goes to `sink` phase by phase, times over
    bool fold_repeats = false;  // PlanOptions::fold_repeats
    WriteBuilders* builders = nullptr;
};

// The call, written by the MPI-IO implementation of its files' settings (FileSettings::mpi_io).
void mpi_io_write(const MpiIoContext& ctx, const WriteCall& call);

// Each rank writes its own pieces; with `data_sieving` (ROMIO's romio_ds_write) a rank with
// noncontiguous pieces reads and writes windows around them instead.
void independent_write(const MpiIoContext& ctx, const WriteCall& call, bool data_sieving);

// `from`'s flows run in `into` too (writes to several files, a write beside a shuffle).
void add_flows(Phase& into, Phase&& from);

// log2(P) steps of a collective; on nodes that run more ranks than cores (`oversubscription`
// above 1) a step is a scheduler's time slice, the platform's oversubscribed_step_s if it gives
// one.
double collective_overhead_s(const Platform& p, int ranks, double oversubscription);

// The collective steps of one collective write call outside ROMIO's generic path (OMPIO's,
// HDF5's collective metadata write).
double collective_write_call_s(const Platform& p, int ranks, double oversubscription);

// A collective write call's fixed steps, the library's (none for a program's own MPI-IO call)
// and `mpi_io_steps` of its MPI-IO layer, as a phase of the call.
void charge_collective_call(const MpiIoContext& ctx, const WriteCall& call, int mpi_io_steps);

// Ranks beyond a node's cores wait for a time slice in every collective step.
double oversubscription(const Platform& p, const std::vector<int>& node_of_rank);

// The oversubscription of the nodes that the call's writers run on.
double call_oversubscription(const Platform& p, const WriteCall& call);

}  // namespace iosim
