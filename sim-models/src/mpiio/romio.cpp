#include "mpiio/romio.hpp"

#include "mpiio/aggregator_placement.hpp"
#include "mpiio/collective_buffering.hpp"
#include "mpiio/romio_cb_write.hpp"
#include "mpiio/romio_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

namespace iosim {

namespace {

// "*:N" or "*:*": at most N (or every) writer per node may aggregate.
int per_node_limit(const std::string& list)
{
    auto colon = list.find(':');
    if (list.empty() || list[0] != '*' || (colon != std::string::npos && colon != 1))
        throw std::invalid_argument("mpiio.cb_config_list: only \"*:N\" and \"*:*\" are modelled, got '" + list + "'");
    if (colon == std::string::npos)
        return 1;
    std::string n = list.substr(colon + 1);
    if (n == "*")
        return 1 << 30;
    int v = std::stoi(n);
    if (v < 1)
        throw std::invalid_argument("mpiio.cb_config_list: per-node count must be >= 1");
    return v;
}

int default_aggregator_count(const Platform& p, const FileSettings& s, int nodes, int stripe_count)
{
    if (p.site.driver == RomioDriver::lustre)
        return stripe_count * std::max(1, s.co_ratio);
    if (p.site.default_cb_nodes.kind == CbNodesRule::Kind::stripe_count)
        return stripe_count;
    return nodes;
}

// ROMIO's Blue Gene driver (ad_bgl_aggrs.c, ADIOI_BGL_compute_agg_ranklist_serial): in every
// pset (the compute nodes of one I/O node) that holds ranks of the job, aggregators in
// proportion to those ranks, `per_pset` for a full pset of ranks and at least one; within a
// pset the ranks on CPU 0 of their node first, in rank order, then CPU 1, and so on. The
// driver's hints code reads bgl_nodes_pset, not cb_nodes or cb_config_list.
std::vector<int> pset_aggregators(const Platform& p, const std::vector<int>& node_of_writer, int per_pset)
{
    std::map<int, std::vector<std::pair<int, int>>> by_pset;  // pset -> (cpu, writer), rank order
    std::map<int, int> on_node;
    int ranks_per_node = 1;
    for (size_t w = 0; w < node_of_writer.size(); w++) {
        int node = node_of_writer[w];
        int cpu = on_node[node]++;
        ranks_per_node = std::max(ranks_per_node, cpu + 1);
        by_pset[router_of_node(p, node)].emplace_back(cpu, static_cast<int>(w));
    }
    double ratio = std::min(1.0, static_cast<double>(per_pset) / (p.routers.nodes_per_router * ranks_per_node));
    std::vector<int> out;
    for (auto& [pset, ranks] : by_pset) {
        auto n = std::max<size_t>(1, static_cast<size_t>(static_cast<double>(ranks.size()) * ratio));
        std::stable_sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (size_t i = 0; i < n; i++)
            out.push_back(ranks[i].second);
    }
    return out;
}

}  // namespace

std::vector<int> choose_aggregators(const Platform& p, const FileSettings& s, const std::vector<int>& node_of_writer,
                                    int stripe_count)
{
    const CbNodesRule& rule = p.site.default_cb_nodes;
    if (rule.kind == CbNodesRule::Kind::per_router) {
        int per_pset = s.bgl_nodes_pset > 0 ? s.bgl_nodes_pset : rule.per_router;
        return pset_aggregators(p, node_of_writer, per_pset);
    }
    std::vector<int> candidates =
        aggregator_candidates(node_of_writer, per_node_limit(s.cb_config_list), p.site.aggregator_placement);
    std::vector<int> nodes_seen(node_of_writer);
    std::sort(nodes_seen.begin(), nodes_seen.end());
    int nodes = static_cast<int>(std::unique(nodes_seen.begin(), nodes_seen.end()) - nodes_seen.begin());
    int wanted = s.cb_nodes > 0 ? s.cb_nodes : default_aggregator_count(p, s, nodes, stripe_count);
    candidates.resize(std::min<size_t>(candidates.size(), std::max(1, wanted)));
    return candidates;
}

namespace {

BufferingPlan romio_plan(const MpiIoContext& ctx, const OpenFile& f, uint64_t lo, uint64_t hi, const PieceSet& pieces)
{
    const Platform& p = ctx.platform;
    const FileSettings& s = *f.settings;
    BufferingPlan plan;
    plan.aggregators = choose_aggregators(p, s, f.node_of_writer, f.striping.count);
    int n = static_cast<int>(plan.aggregators.size());
    // the Lustre driver: stripe i to aggregator i mod n, whole stripes a round; the others:
    // even domains aligned to striping_unit, whole rounds from each one's first byte
    if (p.site.driver == RomioDriver::lustre) {
        plan.domain = unit_cyclic_domain(lo, hi, n, f.striping.size, s.cb_buffer_size, true);
        return plan;
    }
    plan.domain = romio_rounds_domain(lo, hi, n, f.striping.size, s.cb_buffer_size, pieces);
    plan.whole_rounds = true;
    return plan;
}

}  // namespace

void romio_write(const MpiIoContext& ctx, const WriteCall& call)
{
    bool collective = call.collective && !call.files.empty();
    Hint hint = collective ? call.files.front()->settings->cb_write : Hint::disable;
    bool cb = collective && romio_buffers(hint, call.pieces);
    if (collective)
        charge_collective_call(ctx, call, romio_call_steps(hint, cb));
    ctx.breakdown.write_paths.push_back(cb ? WritePath::two_phase : WritePath::independent);
    if (!cb)
        return independent_write(ctx, call, true);
    // ADIOI_W_Exchange_data: an MPI_Alltoall of the sizes, then the data, then the write
    buffered_write(ctx, call, [&](const OpenFile& f, uint64_t lo, uint64_t hi, const PieceSet& pieces) {
        return romio_plan(ctx, f, lo, hi, pieces);
    }, RoundStyle{true, false});
}

}  // namespace iosim
