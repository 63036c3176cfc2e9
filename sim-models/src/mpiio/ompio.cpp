#include "mpiio/ompio.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mpiio/collective_buffering.hpp"

namespace iosim {

namespace {

// dynamic_gen2 on a file system without stripes (ufs reports stripe size 0) cuts domains into
// 64 KiB units (fcoll_dynamic_gen2_file_write_all.c, mca_fcoll_dynamic_gen2_file_write_all)
constexpr uint64_t gen2_unit_without_stripes = 65536;

// mca_fcoll_base_file_select takes the highest priority (fcoll/base/fcoll_base_file_select.c);
// each component's file_query (fcoll/*/fcoll_*_module.c) raises its own: individual to 100
// for at most 2 processes, dynamic_gen2 to 50 on Lustre, vulcan to 50 elsewhere.
Fcoll selected_fcoll(const Platform& p, const FileSettings& s, int procs)
{
    if (s.fcoll != Fcoll::automatic)
        return s.fcoll;
    if (procs <= 2)
        return Fcoll::individual;
    return p.site.driver == RomioDriver::lustre ? Fcoll::dynamic_gen2 : Fcoll::vulcan;
}

// The collective buffer: the file's cb_buffer_size hint over io_ompio_bytes_per_agg
// (common_ompio_file_open.c, mca_common_ompio_set_file_defaults).
uint64_t buffer_bytes(const FileSettings& s)
{
    return s.cb_buffer_size_hint ? s.cb_buffer_size : s.ompio_bytes_per_agg;
}

// Average bytes per contiguous piece and per writer over the writers with data: OMPIO's
// f_cc_size and f_avg_view_size of the view HDF5 sets for the call.
std::pair<uint64_t, uint64_t> view_sizes(const PieceSet& pieces_of_call)
{
    std::vector<uint64_t> bytes, pieces;
    pieces_of_call.writer_totals(bytes, pieces);
    double contiguous = 0, view = 0;
    int writers = 0;
    for (size_t w = 0; w < bytes.size(); w++)
        if (pieces[w] > 0) {
            contiguous += static_cast<double>(bytes[w]) / static_cast<double>(pieces[w]);
            view += static_cast<double>(bytes[w]);
            writers++;
        }
    if (writers == 0)
        return {1, 1};
    return {std::max<uint64_t>(1, static_cast<uint64_t>(contiguous / writers)),
            std::max<uint64_t>(1, static_cast<uint64_t>(view / writers))};
}

// The aggregator count (common_ompio_file_view.c, mca_common_ompio_set_view): the file's
// cb_nodes hint, else io_ompio_num_aggregators, capped at the process count; else the
// simple grouping. dynamic_gen2 takes the stripe count, else io_ompio_num_aggregators, else 1
// (its get_configuration), ignoring cb_nodes.
int aggregator_count(const FileSettings& s, Fcoll fcoll, int procs, int stripe_count, const PieceSet& pieces)
{
    if (fcoll == Fcoll::dynamic_gen2) {
        int n = stripe_count > 1 ? stripe_count : std::max(1, s.ompio_aggregators);
        return std::min(n, procs);
    }
    int requested = s.cb_nodes > 0 ? s.cb_nodes : s.ompio_aggregators;
    if (requested > 0)
        return std::min(requested, procs);
    auto [contiguous, view] = view_sizes(pieces);
    return ompio_simple_grouping(procs, contiguous, view, buffer_bytes(s));
}

// Groups of consecutive ranks, the first P mod n one larger; each group's first rank
// aggregates (common_ompio_aggregators.c, mca_common_ompio_forced_grouping).
std::vector<int> aggregator_writers(int procs, int n)
{
    std::vector<int> out;
    for (int k = 0; k < n; k++)
        out.push_back(k * (procs / n) + std::min(k, procs % n));
    return out;
}

// The components' file domains and cycles: vulcan: the call's range in n equal parts, part i
// owning the offsets (offset / part) mod n == i (break_file_view), half the buffer a cycle
// (double-buffered); dynamic_gen2: stripes (64 KiB without them) dealt round robin, half the
// buffer a cycle; two_phase: ROMIO-like even domains, the whole buffer a cycle.
BufferingPlan plan_for(Fcoll fcoll, const FileSettings& s, const OpenFile& f, uint64_t lo, uint64_t hi,
                       const PieceSet& pieces)
{
    int procs = static_cast<int>(f.node_of_writer.size());
    int n = aggregator_count(s, fcoll, procs, f.striping.count, pieces);
    BufferingPlan plan{aggregator_writers(procs, n), nullptr};
    uint64_t buffer = buffer_bytes(s);
    switch (fcoll) {
    case Fcoll::vulcan: {
        uint64_t part = std::max<uint64_t>(1, (hi - lo + n - 1) / static_cast<uint64_t>(n));
        plan.domain = unit_cyclic_domain(lo, hi, n, part, std::max<uint64_t>(1, buffer / 2), false);
        break;
    }
    case Fcoll::dynamic_gen2: {
        uint64_t unit = f.striping.count > 1 ? f.striping.size : gen2_unit_without_stripes;
        plan.domain = unit_cyclic_domain(lo, hi, n, unit, std::max<uint64_t>(1, buffer / 2), false);
        break;
    }
    default:
        plan.domain = contiguous_domain(lo, hi, n, 1, buffer);
    }
    return plan;
}

}  // namespace

int ompio_simple_grouping(int procs, uint64_t contiguous, uint64_t view, uint64_t buffer)
{
    // common_ompio_aggregators.c: cost_calc (LogGP, DDR InfiniBand values) and
    // mca_common_ompio_simple_grouping, with io_ompio_aggregators_cutoff_threshold 3 and
    // io_ompio_max_aggregators_ratio 8 (their defaults)
    auto cost = [&](int aggregators) {
        const double L = 1.84e-6, o = 1.49e-6, G = 6.7e-10;
        double n_as = 1, n_ar = 1, m_s = 1;
        double d_p = static_cast<double>(contiguous), b_c = static_cast<double>(buffer);
        double n_r = static_cast<double>((static_cast<uint64_t>(procs) * contiguous) / aggregators) / b_c;
        if (contiguous == view) {
            n_ar = d_p > b_c ? 1 : b_c / d_p;
            m_s = d_p > b_c ? b_c : d_p;
        } else {
            int side = static_cast<int>(std::sqrt(procs));
            n_as = static_cast<double>(aggregators) / side;
            n_ar = side;
            m_s = contiguous > static_cast<uint64_t>(aggregators) * buffer / procs ? std::min(b_c / side, d_p)
                                                                                  : std::min(d_p * side / aggregators, d_p);
        }
        double n_s = d_p / (n_as * m_s);
        double g = m_s < 33554432 ? 1.08e-6 : 1.19e-5;
        return n_s * (L + 2 * o + (n_as - 1) * g + (m_s - 1) * n_as * G) +
               n_r * (L + 2 * o + (n_ar - 1) * g + (m_s - 1) * n_ar * G);
    };
    const double relative_cutoff = 0.03, absolute_cutoff = 0.001;
    int step = procs < 16 ? 2 : procs < 128 ? 4 : procs < 4096 ? 16 : 32;
    double previous = cost(1), previous_gain = 0;
    int chosen = 1;
    for (int aggregators = step; aggregators <= procs; aggregators += step) {
        double t = cost(aggregators);
        double gain = (previous - t) / previous;
        double gain_change = aggregators == step ? gain : previous_gain - gain;
        if (gain_change < relative_cutoff || previous - t < absolute_cutoff)
            break;
        previous = t;
        previous_gain = gain;
        chosen = aggregators;
    }
    return std::max(1, std::min(chosen, procs / 8));
}

void ompio_write(const MpiIoContext& ctx, const WriteCall& call)
{
    const FileSettings& s = *call.files.front()->settings;
    int procs = static_cast<int>(call.files.front()->node_of_writer.size());
    Fcoll fcoll = call.collective ? selected_fcoll(ctx.platform, s, procs) : Fcoll::individual;
    bool buffered = fcoll != Fcoll::individual;
    ctx.breakdown.write_paths.push_back(buffered ? WritePath::two_phase : WritePath::independent);
    // fbtl posix writes each piece (pwritev per contiguous run): no data sieving for writes
    if (!buffered)
        return independent_write(ctx, call, false);
    // vulcan posts the next cycle's shuffle (isend / irecv only) before waiting for the
    // previous cycle's non-blocking write (fcoll_vulcan_file_write_all.c), dynamic_gen2 likewise
    // with blocking writes; two_phase exchanges sizes all-to-all each cycle, then shuffles and
    // writes in turn (fcoll_two_phase_file_write_all.c)
    RoundStyle style{fcoll == Fcoll::two_phase, fcoll != Fcoll::two_phase};
    buffered_write(ctx, call, [&](const OpenFile& f, uint64_t lo, uint64_t hi, const PieceSet& pieces) {
        return plan_for(fcoll, *f.settings, f, lo, hi, pieces);
    }, style);
}

}  // namespace iosim
