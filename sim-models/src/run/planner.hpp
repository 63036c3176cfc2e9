// A workload under one config, turned into the ordered phases of its run: open, dataset
// creation, write calls (through ROMIO), flushes and close of every file session.
#pragma once

#include <vector>

#include "fs/osc_window.hpp"
#include "model/file_layout.hpp"
#include "model/model.hpp"
#include "model/workload.hpp"
#include "mpiio/mpi_io.hpp"

namespace iosim {

enum class Placement { packed, target_grouped };

struct PlanOptions {
    bool aggregate = true;
    Placement placement = Placement::packed;
    bool report_ranges = false;
    int best_stripe_count = 0;  // the best ceiling's stripes (0: the platform's most)
    // Materialise every piece of a call and walk them, as iosim did before regular selections
    // were computed in closed form (kept to check that both give the same answers).
    bool walk_pieces = false;
    // A call's periodic repetitions planned once and repeated (repeat_fold.hpp); false: every
    // repetition planned and timed (kept to check that both give the same answers).
    bool fold_repeats = true;
    // The answer lists each write call's path (one entry a call: millions for IO500's hard
    // phase); without it, only how many calls took each path.
    bool list_write_paths = false;
    // The Lustre client's window table by node and target grows to this many cells, then
    // hashes its OSCs instead (osc_window.hpp; 0: always hashed, kept to check that both give
    // the same answers).
    size_t osc_table_cells = OscWindow::kTableCells;
};

// Emits every phase to `sink`, in order, and a call's periodic repetitions as a block repeated
// to `blocks` (empty: phase by phase to `sink`). settings and layouts: one per workload file
// session.
void plan_run(const Platform& p, const Workload& w, const std::vector<FileSettings>& settings,
              const std::vector<const FileLayout*>& layouts, const PlanOptions& options, Breakdown& breakdown,
              const PhaseSink& sink, const BlockSink& blocks = {});

// breakdown.bytes_per_server from its bytes_per_target.
void sum_by_server(const Platform& p, Breakdown& breakdown);

int ranks_per_node(const Platform& p, const Workload& w);

}  // namespace iosim
