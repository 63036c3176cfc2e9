// A Lustre client between the application and the OSTs: a write returns once its data is in
// the client's cache (copied at what one process can push), while the cache is flushed in the
// background, up to a dirty budget per OSC (one client node's connection to one OST); a close
// or flush waits until everything written before it is on the targets.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/phase_timer.hpp"
#include "fs/dirty_pages.hpp"
#include "fs/flat_map.hpp"
#include "fs/osc_window.hpp"
#include "fs/target_rotation.hpp"

namespace iosim {

class LustreClient {
public:
    // osc_table_cells: how large the window's table by node and target may grow
    // (osc_window.hpp).
    LustreClient(const Platform& p, PhaseTimer& timer, TimeAttribution& attribution,
                 size_t osc_table_cells)
        : platform_(p), timer_(timer), attribution_(attribution), window_(storage_targets(p), osc_table_cells)
    {
    }

    // Application seconds spent in `phase` (once): what its label is charged. The same
    // seconds are charged to the mechanisms they go to (binding.hpp).
    double run(const Phase& phase);
    // `block`'s phases run `times` over: the seconds of each phase of the block over all of
    // them. With `fold`, once the client's state at the end of a block is the state q blocks
    // before moved later by a time λ (its window holds the same bytes per OSC, its flushes are
    // as far ahead of the application), and the q blocks before that did the same, the blocks
    // left are that period again: their seconds, charges and clock are added in closed form
    // (whole periods), the remainder run (repeat_fold.hpp).
    // With a rotation, the j-th run of the block has its targets moved j steps, the state is
    // compared with its targets moved back as far, and the period is a whole number of the
    // rotation's orbits (a moved block may take another time when its servers differ).
    // A window can hold many orbits of runs (IO500's hard phase: tens of thousands of
    // phases): an orbit of runs that neither flushed nor waited is followed by as many more as
    // fit in every OSC's budget, each adding the same bytes to the same OSCs and taking the
    // same seconds, added in closed form (Stretch).
    std::vector<double> run_block(const std::vector<Phase>& block, uint64_t times, bool fold,
                                  const TargetRotation& rotation = {});
    // Whether every write so far is on the targets (without a cache: always).
    bool all_on_storage() const;
    // Whether the targets took every write within the I/O time: all of it on them, and none
    // of it flushed while the application computed (a compute phase that began with writes
    // still in the cache: their flush went on during it, outside the I/O time).
    bool storage_within_io_time() const;
    // Per target, the bytes written over bytes still dirty in the cache (dirty_pages.hpp): the
    // targets took them once, not as often as they were written.
    const std::vector<uint64_t>& overwritten_per_target() const { return overwritten_per_target_; }

private:
    // The state at the start of an orbit of block runs, to tell what the orbit added.
    struct Stretch {
        uint64_t events = 0;  // flushes and waits before it
        double now = 0, last_start = 0;
        std::vector<Flow> window;  // the window's entries, in the order of their keys
        std::vector<double> seconds;
        TimeAttribution attribution;
    };
    Stretch stretch_from(const std::vector<double>& seconds) const;
    // Adds what the orbit since `s` added, as many times over as every OSC's budget holds
    // (at most `most`); returns how many times.
    uint64_t extend(const Stretch& s, uint64_t most, std::vector<double>& seconds);
    struct Copy {
        double seconds = 0;
        Mechanism limit = Mechanism::client_processes;
    };
    // What the client's bookkeeping needs of a write phase, found once for a block's phases
    // that run many times over.
    struct PhaseLoad {
        std::vector<std::pair<uint64_t, uint64_t>> osc_bytes;  // per OSC, in OSC order
        uint64_t busiest_node_bytes = 0;
        uint64_t busiest_osc_bytes = 0;
    };
    // Where a run of a block puts each target (target -> target); empty: where it is.
    using TargetMap = std::vector<int>;
    // A block's writes over one run, merged by OSC. When they fit in every OSC beside what the
    // window holds, no phase of the run fills an OSC (the bytes only grow within a run), so
    // nothing flushes and the run adds them at once: one update an OSC, not one a phase
    // (IO500's hard phase: 512 phases of 163 flows a run, some 1,800 OSCs).
    struct BlockWrites {
        std::vector<Flow> merged;     // per OSC
        const Phase* last = nullptr;  // the run's last phase
        bool whole = false;           // every phase a write that fits an OSC's budget alone
    };
    BlockWrites block_writes(const std::vector<Phase>& block, const std::vector<PhaseLoad>& loads) const;
    bool fits_in_window(const std::vector<Flow>& merged, const TargetMap& moved_to) const;
    void run_whole(const std::vector<Phase>& block, const BlockWrites& writes, const std::vector<PhaseLoad>& loads,
                   const TargetMap& moved_to, std::vector<double>& seconds);
    bool write_back() const { return platform_.cache.osc_dirty_bytes > 0; }
    // `phase` with its targets moved by `moved_to`; `load`, if given, is the phase's as it is.
    // `own_bytes`: its extents are the bytes it writes (not a later run of a folded block,
    // whose bytes lie elsewhere).
    double run(const Phase& phase, const PhaseLoad* load, const TargetMap& moved_to, bool own_bytes);
    // What the client side takes to push the phase's writes: its busiest process, its
    // busiest node, whichever takes longer.
    Copy copy_s(const Phase& phase, uint64_t busiest_node_bytes) const;
    double lock_wait(const Phase& phase);  // charged to the lock waits
    void charge(const Phase& phase, const Timing& timing);
    // The application waits until `until`: charged to the flush it waits for.
    void wait_for(double until, const PhaseBinding& flush);
    double write_through(const Phase& phase);
    double write_back_phase(const Phase& phase, const PhaseLoad& load, const TargetMap& moved_to, bool own_bytes);
    void load_of(const Phase& phase, PhaseLoad& into);
    // Its writes into the open window, as its last; with `own_bytes`, less what they overwrite
    // of the window's dirty bytes where the cache keeps overwrites in place.
    void add_to_window(const Phase& phase, const TargetMap& moved_to, bool own_bytes);
    void add_flow(const Flow& f);  // into the window's entry of its OSC
    // The application's part of a write that runs ahead of its flush: its copy, fixed time
    // and lock waits, charged.
    void copy_ahead(const Phase& phase, const PhaseLoad& load);
    // Per OSC, the bytes of the phase's extents that are dirty in the window already; marks
    // them all dirty.
    void find_overwrites(const Phase& phase);
    // `f` less the bytes of its OSC found overwritten and not yet taken off another flow.
    void take_overwrites(Flow& f);
    // Would the phase's OSC loads push an OSC past its budget, with the open window's data or
    // (alone) without?
    bool over_budget(const PhaseLoad& load, bool alone, const TargetMap& moved_to) const;
    void flush_window();
    // The state that decides what later phases cost: its clocks, and a hash of the rest.
    std::vector<double> clocks() const;
    uint64_t state_hash(const TargetRotation& rotation, long long steps) const;
    void shift_clocks(double by);
    void move_targets(const TargetRotation& rotation, long long steps);  // the cached state's

    const Platform& platform_;
    PhaseTimer& timer_;
    TimeAttribution& attribution_;
    PhaseBinding flushed_binding_, earlier_flushed_binding_;  // of the last windows flushed
    double now_ = 0;            // the application's clock
    double flushed_at_ = 0;     // when the last window in flight is on the targets
    double earlier_flushed_at_ = 0;  // when the window before it was
    // The open window: writes in the cache together, each OSC within its budget, merged by
    // OSC (node, target); and the last of its write phases.
    OscWindow window_;
    // The most bytes an OSC holds in the window: while a phase's busiest OSC fits beside it,
    // no OSC of the phase can be over budget, and over_budget() looks none up.
    uint64_t fullest_osc_bytes_ = 0;
    DirtyPages dirty_;      // the window's bytes, where the cache keeps overwrites in place
    FlatMap<uint64_t> overwrites_;  // scratch: find_overwrites()'s, by OSC
    std::vector<uint64_t> overwritten_per_target_;
    PhaseLoad load_;                    // scratch: a phase's load
    std::vector<uint64_t> node_bytes_;  // scratch: a phase's bytes per node (zero between phases)
    double window_start_ = 0;
    Phase last_;
    double last_start_ = 0;
    bool drained_in_compute_ = false;  // storage_within_io_time()
    uint64_t events_ = 0;  // windows flushed and waits for flushes: what a Stretch may not hold
};

}  // namespace iosim
