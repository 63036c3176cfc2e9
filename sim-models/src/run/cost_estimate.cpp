#include "run/cost_estimate.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "iolib/io_library.hpp"
#include "mpiio/repeat_fold.hpp"
#include "selection/box_region.hpp"
#include "selection/run_region.hpp"

namespace iosim {

using nlohmann::json;

namespace {

// Weights, in steps (about 0.1 us each on this machine), of what the planner does per item.
// A rank and a call fitted to the CPU of IO500's easy and hard write phases (8 to 8,192
// ranks, 16 and 64 segments; sim-models/IOSIM.md "What the simulation costs").
constexpr double per_rank_placed = 140;  // a rank placed, its client and its share of each phase
constexpr double per_writer = 1;        // a writer's place in a call (extents, nodes, flows)
constexpr double per_interval = 3;      // an interval of an aggregator's domain in a round
constexpr double per_piece = 1;         // a piece walked one by one
constexpr double per_chunk = 20;        // a chunk HDF5 allocates and iosim reads back
constexpr double per_dataset = 500;     // a dataset HDF5 creates for the layout (50 us)
constexpr double per_call = 12;         // a write call on one open file: its pieces, its phases
constexpr double per_flow_pair = 0.5;   // coupled mode: SimGrid scans a phase's pending flows per flow
// A call repeated many times is planned and timed for its first periods (repeat_fold.hpp): at
// most this many of its repetitions cost their full steps, the others one step each (what a
// repetition still appends to the breakdown).
constexpr double folded_repetitions_planned = 4096;

// The repetitions of a call of `times` that cost their full steps.
double planned(double times, bool fold)
{
    return fold && times >= static_cast<double>(min_folded_times) ? std::min(times, folded_repetitions_planned)
                                                                   : times;
}
// Bytes held per item.
constexpr double rank_bytes = 16;     // placement: node of rank, order, target
constexpr double writer_bytes = 12;   // per open file: node, rank, end of node run
constexpr double piece_bytes = 28;    // a listed piece and its place in its writer's list
constexpr double slot_bytes = 48;     // a decomposition's extent and start per slot, read and held
constexpr double chunk_bytes = 16;    // a chunk's address, and the B-tree it is read from
constexpr double instance_bytes = 512;  // an open file's state

std::string number_text(double x)
{
    char buf[32];
    if (x < 1e6)
        std::snprintf(buf, sizeof buf, "%.0f", x);
    else
        std::snprintf(buf, sizeof buf, "%.2g", x);
    return buf;
}

}  // namespace

std::string bytes_text(double bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && u < 6) {
        bytes /= 1024;
        u++;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, bytes < 10 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

void CostEstimate::add_steps(double n, const std::string& what)
{
    steps_ += n;
    if (n > largest_steps_) {
        largest_steps_ = n;
        steps_what_ = what;
    }
}

void CostEstimate::add_memory(double bytes, const std::string& what)
{
    memory_ += bytes;
    if (bytes > largest_memory_) {
        largest_memory_ = bytes;
        memory_what_ = what;
    }
}

std::string CostEstimate::steps_text() const
{
    return number_text(steps_) + " steps" + (steps_what_.empty() ? "" : " (most for " + steps_what_ + ")");
}

std::string CostEstimate::memory_text() const
{
    return bytes_text(memory_) + (memory_what_.empty() ? "" : " (most for " + memory_what_ + ")");
}

std::string CostEstimate::text() const
{
    return steps_text() + " and " + memory_text();
}

void CostEstimate::check(const Limits& limits) const
{
    if (steps_ > limits.max_steps)
        throw std::invalid_argument("estimated cost " + steps_text() + " is beyond the limit of " +
                                    number_text(limits.max_steps) +
                                    " steps; raise it with iosim --max-steps or options.max_steps");
    if (limits.memory_bytes > 0 && memory_ > static_cast<double>(limits.memory_bytes))
        throw std::invalid_argument("estimated memory " + memory_text() + " is beyond the memory limit of " +
                                    bytes_text(static_cast<double>(limits.memory_bytes)) +
                                    "; raise it with iosim --memory-limit or options.memory_limit");
}

// ---- the workload as given ----

namespace {

double number_at(const json& j, const char* key, double fallback)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        return fallback;
    return j[key].get<double>();
}

// Slots a decomposition form allocates (one extent and start per slot per axis), and the
// writers it names.
void decomposition_size(const json& d, double& slots, double& writers)
{
    slots = 0;
    writers = 1;
    if (!d.is_object() || !d.contains("grid") || !d["grid"].is_array())
        return;
    for (const json& g : d["grid"]) {
        double n = g.is_number() ? std::max(0.0, g.get<double>()) : 0;
        slots += n;
        writers *= n;
    }
}

}  // namespace

CostEstimate estimate_workload(const json& workload)
{
    CostEstimate e;
    double ranks = std::max(1.0, number_at(workload, "ranks", 1));
    e.add_memory(ranks * rank_bytes, number_text(ranks) + " ranks placed (workload.ranks)");
    e.add_steps(ranks * per_writer, number_text(ranks) + " ranks placed (workload.ranks)");
    if (!workload.is_object() || !workload.contains("files") || !workload["files"].is_array())
        return e;
    const json& files = workload["files"];
    for (size_t i = 0; i < files.size(); i++) {
        const json& f = files[i];
        if (!f.is_object())
            continue;
        std::string where = "workload.files[" + std::to_string(i) + "]";
        std::string mode = f.contains("mode") && f["mode"].is_string() ? f["mode"].get<std::string>() : "shared";
        double instances = mode == "per-rank" ? ranks : mode == "groups" ? std::max(1.0, number_at(f, "groups", 1)) : 1;
        double writers = mode == "per-rank" ? 1 : std::floor(ranks / instances);
        e.add_memory(instances * (instance_bytes + writers * writer_bytes),
                     number_text(instances) + " open files of " + number_text(writers) + " writers (" + where + ")");
        double calls = 0;
        if (f.contains("datasets") && f["datasets"].is_array()) {
            const json& datasets = f["datasets"];
            e.add_steps(static_cast<double>(datasets.size()) * per_dataset,
                        number_text(static_cast<double>(datasets.size())) + " datasets laid out (" + where +
                            ".datasets)");
            for (size_t d = 0; d < datasets.size(); d++) {
                double slots = 0, named = 0;
                if (datasets[d].is_object() && datasets[d].contains("decomposition"))
                    decomposition_size(datasets[d]["decomposition"], slots, named);
                e.add_memory(slots * slot_bytes, number_text(slots) + " decomposition slots (" + where +
                                                     ".datasets[" + std::to_string(d) + "])");
            }
            calls = static_cast<double>(datasets.size());
        }
        if (f.contains("calls") && f["calls"].is_array()) {
            calls = 0;
            const json& cs = f["calls"];
            for (size_t c = 0; c < cs.size(); c++) {
                std::string at = where + ".calls[" + std::to_string(c) + "]";
                double times = cs[c].is_object() && cs[c].contains("repeat")
                                   ? std::max(1.0, number_at(cs[c]["repeat"], "times", 1))
                                   : 1;
                calls += times;
                // The workload's estimate assumes folded repetitions (options.fold_repeats, the
                // default); a config that turns them off is estimated in full below.
                e.add_steps(planned(times, true) * instances * (per_call + writers * per_writer)
                                + (times - planned(times, true)),
                            number_text(times) + " write calls on " + number_text(instances) + " files of " +
                                number_text(writers) + " writers (" + at + (times > 1 ? ".repeat" : "") + ")");
                if (!cs[c].is_object() || !cs[c].contains("selections") || !cs[c]["selections"].is_array())
                    continue;
                for (const json& sel : cs[c]["selections"]) {
                    double slots = 0, named = 0;
                    decomposition_size(sel, slots, named);
                    e.add_memory(slots * slot_bytes, number_text(slots) + " selection slots (" + at + ")");
                }
            }
        } else {
            e.add_steps(calls * instances * (per_call + writers * per_writer),
                        number_text(calls) + " write calls on " + number_text(instances) + " files of " +
                            number_text(writers) + " writers (" + where + ")");
        }
    }
    return e;
}

// ---- one config's run ----

namespace {

struct Axis {
    std::vector<uint64_t> start, extent;  // the nonempty slots, in order
};

// Pieces of boxes (one slot per axis) cut by chunks (access.cpp chunked_runs): per axis the
// pieces of slots between chunk boundaries; a cell is one run per index of the axes before
// the first axis from which every later axis covers its chunk whole.
double chunked_pieces(const std::vector<Axis>& axes, const std::vector<uint64_t>& chunk)
{
    size_t nd = axes.size();
    std::vector<double> cells(nd, 0), whole(nd, 0), length(nd, 0);
    for (size_t a = 0; a < nd; a++)
        for (size_t s = 0; s < axes[a].start.size(); s++) {
            uint64_t at = axes[a].start[s], end = at + axes[a].extent[s];
            length[a] += static_cast<double>(end - at);
            while (at < end) {
                uint64_t stop = std::min(end, (at / chunk[a] + 1) * chunk[a]);
                cells[a] += 1;
                whole[a] += at % chunk[a] == 0 && stop - at == chunk[a];
                at = stop;
            }
        }
    double total = 0, before = 1;
    for (size_t i = 0; i < nd; i++) {
        double after = 1;
        for (size_t b = i + 1; b < nd; b++)
            after *= whole[b];
        total += before * (i == 0 ? cells[0] : cells[i] - whole[i]) * after;
        before *= length[i];
    }
    return total;
}

Axis axis_of(const Dataset& grid, size_t a, uint64_t origin)
{
    Axis out;
    for (uint64_t s = 0; s < grid.grid[a]; s++)
        if (grid.extents[a][s] > 0) {
            out.start.push_back(origin + grid.starts[a][s]);
            out.extent.push_back(grid.extents[a][s]);
        }
    return out;
}

// What one write call of one instance moves and walks.
struct CallShape {
    double bytes = 0;
    double pieces = 0;  // in closed form, walked only by independent writes
    double listed = 0;  // materialised and walked whatever the path (runs of chunked datasets)
    double chunks = 0;  // chunks of chunked datasets, each cut out of the selection when asked
};

double chunk_count(const Dataset& ds, const std::vector<uint64_t>& chunk)
{
    if (chunk.empty())
        return 0;
    double n = 1;
    auto dims = ds.dims();
    for (size_t a = 0; a < dims.size() && a < chunk.size(); a++)
        n *= std::ceil(static_cast<double>(dims[a]) / static_cast<double>(std::max<uint64_t>(1, chunk[a])));
    return n;
}

void add_grid(CallShape& c, const Dataset& ds, const std::vector<uint64_t>& chunk, const Dataset& grid,
              const std::vector<uint64_t>& origin)
{
    auto region = decomposition_region(0, ds.dims(), ds.element_bytes, grid, origin);
    c.bytes += static_cast<double>(region->bytes());
    if (chunk.empty()) {
        c.pieces += static_cast<double>(region->pieces());
        return;
    }
    std::vector<Axis> axes;
    for (size_t a = 0; a < grid.grid.size(); a++)
        axes.push_back(axis_of(grid, a, origin.empty() ? 0 : origin[a]));
    c.pieces += chunked_pieces(axes, chunk);
    c.chunks += chunk_count(ds, chunk);
}

void add_selection(CallShape& c, const Dataset& ds, const std::vector<uint64_t>& chunk, const Selection& sel,
                   const std::vector<uint64_t>& origin)
{
    if (sel.grid)
        return add_grid(c, ds, chunk, sel.decomposition, origin);
    for (const HyperslabRun& run : sel.runs) {
        RunRegion region(0, ds.dims(), ds.element_bytes, run);
        c.bytes += static_cast<double>(region.bytes());
        double pieces = static_cast<double>(region.pieces());
        if (!chunk.empty()) {  // a piece split by every chunk boundary it crosses, at most
            double chunks = 1;
            for (size_t a = 0; a < chunk.size(); a++)
                chunks *= std::ceil(static_cast<double>(ds.dims()[a]) / static_cast<double>(chunk[a]));
            c.listed += pieces + chunks;
        } else {
            c.pieces += pieces;
        }
    }
}

// Intervals of aggregators' domains a two-phase call of `bytes` goes through: stripes (ROMIO's
// Lustre driver, OMPIO's dynamic_gen2) or buffers, whichever is smaller.
double intervals(const Platform& p, const FileSettings& s, double bytes)
{
    uint64_t unit = std::min(s.cb_buffer_size, s.ompio_bytes_per_agg);
    if (!p.fs.gpfs && s.stripe_size > 0)
        unit = std::min<uint64_t>(unit, s.stripe_size);
    if (p.fs.gpfs && p.fs.lock_block_bytes > 0)
        unit = std::min<uint64_t>(unit, p.fs.lock_block_bytes);
    return std::ceil(bytes / static_cast<double>(std::max<uint64_t>(1, unit)));
}

// Without aggregation every rank's flow is simulated: a round's shuffle holds a flow per rank
// and aggregator that has data in it (at most its pieces), a write phase of independent
// writes a flow per rank and target.
double coupled_flow_steps(const FileSettings& s, const CallShape& c, double writers, bool two_phase)
{
    double aggregators = s.cb_nodes > 0 ? s.cb_nodes : std::max(1, s.stripe_count);
    double buffer = static_cast<double>(std::max<uint64_t>(1, s.cb_buffer_size));
    if (!two_phase) {
        double flows = std::min(writers * std::max(1, s.stripe_count), c.pieces + c.listed);
        return flows * flows * per_flow_pair;
    }
    double rounds = std::ceil(c.bytes / (aggregators * buffer));
    double flows = std::min(writers * aggregators, std::ceil((c.pieces + c.listed) / std::max(1.0, rounds)));
    return rounds * flows * flows * per_flow_pair;
}

}  // namespace

CostEstimate estimate_run(const Platform& p, const Workload& w, const std::vector<FileSettings>& settings,
                          const PlanOptions& options)
{
    CostEstimate e;
    e.add_memory(w.ranks * rank_bytes, std::to_string(w.ranks) + " ranks placed");
    e.add_steps(w.ranks * per_rank_placed, std::to_string(w.ranks) + " ranks placed (workload.ranks)");
    for (size_t i = 0; i < w.files.size(); i++) {
        const FileSession& f = w.files[i];
        const FileSettings& s = settings[i];
        std::string where = "workload.files[" + std::to_string(i) + "]";
        double n = f.instances(w.ranks);
        double writers = f.mode == FileMode::per_rank ? 1 : f.writers_per_instance(w.ranks);
        const IoLibrary& library = io_library(f.api);
        std::vector<std::vector<uint64_t>> chunks;
        for (size_t d = 0; d < f.datasets.size(); d++) {
            chunks.push_back(library.chunk_dims(f.datasets[d], s.datasets[d]));
            double c = chunk_count(f.datasets[d], chunks.back());
            std::string at = where + ".datasets[" + std::to_string(d) + "]";
            e.add_steps(c * per_chunk, number_text(c) + " chunks laid out (" + at + ")");
            e.add_memory(c * chunk_bytes, number_text(c) + " chunk addresses (" + at + ")");
            bool chunked = !chunks.back().empty();
            if (library.fills_at_allocation(s.datasets[d], chunked)) {
                double fill = chunked ? c : std::ceil(static_cast<double>(f.datasets[d].bytes()) / (1 << 20));
                e.add_steps(n * fill * per_piece, number_text(fill) + " fill writes (" + at + ")");
                if (chunked)
                    e.add_memory(fill * piece_bytes, number_text(fill) + " fill pieces held (" + at + ")");
            }
        }
        auto add_call = [&](const CallShape& c, bool collective, double times, const std::string& at) {
            bool two_phase = collective && (s.mpi_io == MpiIo::ompio ? s.fcoll != Fcoll::individual
                                                                     : s.cb_write != Hint::disable);
            bool independent = !collective || (s.mpi_io == MpiIo::ompio ? s.fcoll == Fcoll::individual || writers <= 2
                                                                         : s.cb_write != Hint::enable);
            double steps = per_call + writers * per_writer + c.listed * per_piece + c.chunks * per_chunk;
            if (two_phase)
                steps += intervals(p, s, c.bytes) * per_interval;
            if (independent || options.walk_pieces || options.report_ranges)
                steps += c.pieces * per_piece;
            if (!options.aggregate)  // every flow through SimGrid: a phase costs its flows squared
                steps += coupled_flow_steps(s, c, writers, two_phase);
            double full = planned(times, options.fold_repeats);
            e.add_steps(n * (full * steps + (times - full)),
                        number_text(times * n) + " calls of " + bytes_text(c.bytes) + " in " +
                            number_text(c.pieces + c.listed) + " pieces (" + at + ")");
            double held = c.listed + (options.walk_pieces || options.report_ranges ? c.pieces : 0);
            held += c.chunks;  // a chunk's place in address order
            e.add_memory(held * piece_bytes, number_text(held) + " pieces held at once (" + at + ")");
        };
        if (f.calls.empty()) {
            auto one = [&](const std::vector<size_t>& datasets, bool collective, const std::string& at) {
                CallShape c;
                for (size_t d : datasets)
                    add_grid(c, f.datasets[d], chunks[d], f.datasets[d], {});
                add_call(c, collective, 1, at);
            };
            if (f.one_call) {
                std::vector<size_t> all;
                for (size_t d = 0; d < f.datasets.size(); d++)
                    all.push_back(d);
                one(all, s.datasets.empty() || s.datasets[0].collective, where + " (one call)");
            } else {
                for (size_t d = 0; d < f.datasets.size(); d++)
                    one({d}, s.datasets[d].collective, where + ".datasets[" + std::to_string(d) + "]");
            }
            continue;
        }
        for (size_t k = 0; k < f.calls.size(); k++) {
            const IoCall& call = f.calls[k];
            if (call.flush)
                continue;
            CallShape c;
            for (size_t j = 0; j < call.datasets.size(); j++)
                add_selection(c, f.datasets[call.datasets[j]], chunks[call.datasets[j]], call.selections[j],
                              call.selections[j].origin);
            const DatasetSettings& d = s.datasets[call.datasets.front()];
            add_call(c, d.transfer_forced ? d.collective : call.collective, static_cast<double>(call.times),
                     where + ".calls[" + std::to_string(k) + "]");
        }
    }
    return e;
}

}  // namespace iosim
