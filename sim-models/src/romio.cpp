#include "romio.hpp"

#include "data_sieving.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

namespace iosim {

double collective_overhead_s(const Platform& p, int ranks)
{
    return p.network.collective_step_s * std::ceil(std::log2(std::max(2, ranks)));
}

// Collective steps of every collective write call, buffered or not: HDF5 1.10's allreduce of
// the I/O mode decision, ROMIO's two allgathers of the ranks' start and end offsets in
// ADIOI_GEN_WriteStridedColl (before it decides whether to buffer), and the closing
// synchronisation of the call.
constexpr int collective_call_steps = 4;

double collective_write_call_s(const Platform& p, int ranks, double oversubscription)
{
    return collective_call_steps * collective_overhead_s(p, ranks) * oversubscription;
}

double oversubscription(const Platform& p, const std::vector<int>& node_of_rank)
{
    int most = 0;
    std::map<int, int> per_node;
    for (int node : node_of_rank)
        most = std::max(most, ++per_node[node]);
    return std::max(1.0, static_cast<double>(most) / p.compute.cores_per_node);
}

namespace {

double call_oversubscription(const Platform& p, const WriteCall& call)
{
    std::vector<int> nodes;
    for (const OpenFile* f : call.files)
        nodes.insert(nodes.end(), f->node_of_writer.begin(), f->node_of_writer.end());
    return oversubscription(p, nodes);
}

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
    int limit = per_node_limit(s.cb_config_list);
    std::map<int, std::vector<int>> by_node;  // node -> its writers, in rank order
    std::vector<int> node_order;
    for (size_t w = 0; w < node_of_writer.size(); w++) {
        auto& list = by_node[node_of_writer[w]];
        if (list.empty())
            node_order.push_back(node_of_writer[w]);
        if (static_cast<int>(list.size()) < limit)
            list.push_back(static_cast<int>(w));
    }
    std::vector<int> candidates;
    for (int node : node_order)
        for (int w : by_node[node])
            candidates.push_back(w);
    int nodes = static_cast<int>(node_order.size());
    int wanted = s.cb_nodes > 0 ? s.cb_nodes : default_aggregator_count(p, s, nodes, stripe_count);
    candidates.resize(std::min<size_t>(candidates.size(), std::max(1, wanted)));
    return candidates;
}

bool interleaved(const std::vector<Access>& sorted)
{
    constexpr uint64_t none = ~uint64_t{0};
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // per writer: [first, end)
    for (const auto& a : sorted) {
        if (a.writer >= spans.size())
            spans.resize(a.writer + 1, {none, 0});
        auto& span = spans[a.writer];
        if (span.first == none)
            span.first = a.offset;
        span.second = a.offset + a.length;
    }
    spans.erase(std::remove_if(spans.begin(), spans.end(), [](const auto& r) { return r.first == none; }),
                spans.end());
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); i++)
        if (spans[i].first < spans[i - 1].second)
            return true;
    return false;
}

namespace {

bool use_collective_buffering(const FileSettings& s, const std::vector<std::vector<Access>>& accesses)
{
    if (s.cb_write == Hint::enable)
        return true;
    if (s.cb_write == Hint::disable)
        return false;
    return std::any_of(accesses.begin(), accesses.end(), [](const auto& a) { return interleaved(a); });
}

// The file intervals an aggregator owns in successive rounds.
class FileDomain {
public:
    virtual ~FileDomain() = default;
    // Next round's intervals of aggregator `a`; false when its domain is exhausted.
    virtual bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) = 0;
};

// Generic / GPFS drivers: [min, max) split evenly, boundaries aligned to `align`.
class ContiguousDomain : public FileDomain {
public:
    ContiguousDomain(uint64_t lo, uint64_t hi, int naggs, uint64_t align, uint64_t cb) : cb_(cb)
    {
        uint64_t size = (hi - lo + naggs - 1) / naggs;
        uint64_t start = lo;
        for (int a = 0; a < naggs; a++) {
            uint64_t end = std::min(hi, lo + size * (a + 1));
            if (align > 1 && end < hi)
                end = std::min(hi, (end + align - 1) / align * align);
            end = std::max(end, start);
            cursor_.push_back(start);
            end_.push_back(end);
            start = end;
        }
    }
    bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) override
    {
        if (cursor_[a] >= end_[a])
            return false;
        uint64_t stop = std::min(end_[a], cursor_[a] + cb_);
        out.emplace_back(cursor_[a], stop);
        cursor_[a] = stop;
        return true;
    }

private:
    uint64_t cb_;
    std::vector<uint64_t> cursor_, end_;
};

// Lustre driver: stripe i belongs to aggregator i mod naggs; a round takes as many whole
// stripes as fit in cb_buffer_size (at least one).
class StripeCyclicDomain : public FileDomain {
public:
    StripeCyclicDomain(uint64_t lo, uint64_t hi, int naggs, uint64_t stripe, uint64_t cb)
        : lo_(lo), hi_(hi), naggs_(naggs), stripe_(stripe), per_round_(std::max<uint64_t>(1, cb / stripe))
    {
        uint64_t first = lo / stripe;
        for (int a = 0; a < naggs; a++) {
            uint64_t s = first + ((a - first % naggs) + naggs) % naggs;
            next_stripe_.push_back(s);
        }
    }
    bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) override
    {
        uint64_t& s = next_stripe_[a];
        if (s * stripe_ >= hi_)
            return false;
        for (uint64_t k = 0; k < per_round_ && s * stripe_ < hi_; k++, s += naggs_)
            out.emplace_back(std::max(lo_, s * stripe_), std::min(hi_, (s + 1) * stripe_));
        return true;
    }

private:
    uint64_t lo_, hi_;
    uint64_t naggs_, stripe_, per_round_;
    std::vector<uint64_t> next_stripe_;
};

struct TwoPhaseFile {
    OpenFile* file;
    std::vector<Access> accesses;  // with one flow per node, a node's touching pieces as one
    std::vector<int> aggregators;
    std::unique_ptr<FileDomain> domain;
    std::vector<size_t> cursor;  // per aggregator: first access that may still overlap
    std::unique_ptr<WritePhaseBuilder> writes;  // one round's writes at a time
};

// Pieces that touch in the file and come from one node travel in the same shuffle flow: one
// piece serves for all (same bytes per flow, same spans and holes), and rounds scan fewer.
std::vector<Access> merged_by_node(const std::vector<Access>& sorted, const std::vector<int>& node_of_writer)
{
    auto same_node = [&](const Access& a, const Access& b) {
        return node_of_writer[a.writer] == node_of_writer[b.writer];
    };
    std::vector<Access> out;
    for (const auto& a : sorted)
        append_touching(out, a, same_node);
    return out;
}

TwoPhaseFile start_two_phase(const RomioContext& ctx, OpenFile* f, const std::vector<Access>& acc)
{
    const Platform& p = ctx.platform;
    Breakdown& bd = ctx.breakdown;
    TwoPhaseFile t{f, ctx.aggregate ? merged_by_node(acc, f->node_of_writer) : acc, {}, nullptr, {},
                   std::make_unique<WritePhaseBuilder>(p, f->striping, *f->holders, bd)};
    const FileSettings& s = *f->settings;
    t.aggregators = choose_aggregators(p, s, f->node_of_writer, f->striping.count);
    int n = static_cast<int>(t.aggregators.size());
    uint64_t lo = acc.front().offset, hi = 0;
    for (const auto& a : acc)
        hi = std::max(hi, a.offset + a.length);
    if (p.site.driver == RomioDriver::lustre)
        t.domain = std::make_unique<StripeCyclicDomain>(lo, hi, n, f->striping.size, s.cb_buffer_size);
    else
        t.domain = std::make_unique<ContiguousDomain>(lo, hi, n, f->striping.size, s.cb_buffer_size);
    t.cursor.assign(n, 0);
    bd.aggregators.push_back(n);
    return t;
}

struct RoundBuilders {
    std::map<std::pair<int, int>, Flow> shuffle;  // (source key, aggregator node)
    double local_copy_s = 0;
};

// One aggregator's share of a round: gather what falls in its intervals, then write it.
// Returns whether it had anything to do.
bool aggregator_round(const RomioContext& ctx, TwoPhaseFile& t, int a, RoundBuilders& rb, WritePhaseBuilder& wb)
{
    std::vector<std::pair<uint64_t, uint64_t>> intervals;
    if (!t.domain->next(a, intervals))
        return false;
    const auto& acc = t.accesses;
    OpenFile& f = *t.file;
    int agg_writer = t.aggregators[a];
    int agg_node = f.node_of_writer[agg_writer];
    uint64_t local_bytes = 0;
    for (auto [lo, hi] : intervals) {
        size_t& i = t.cursor[a];
        while (i < acc.size() && acc[i].offset + acc[i].length <= lo)
            i++;
        uint64_t first = hi, last = lo, data = 0;
        for (size_t j = i; j < acc.size() && acc[j].offset < hi; j++) {
            uint64_t o = std::max(lo, acc[j].offset), e = std::min(hi, acc[j].offset + acc[j].length);
            int src_node = f.node_of_writer[acc[j].writer];
            if (src_node == agg_node) {
                local_bytes += e - o;
            } else {
                int key = ctx.aggregate ? src_node : f.rank_of_writer[acc[j].writer];
                Flow& fl = rb.shuffle[{key, agg_node}];
                fl.src = src_node;
                fl.dst = agg_node;
                fl.bytes += e - o;
                ctx.breakdown.shuffle_bytes += e - o;
            }
            first = std::min(first, o);
            last = std::max(last, e);
            data += e - o;
        }
        if (data == 0)
            continue;
        // Holes in the collective buffer: ROMIO reads the span first (read-modify-write).
        bool holes = data < last - first;
        double read_s = holes ? static_cast<double>(last - first) / ctx.platform.fs.target_Bps : 0;
        if (holes)
            ctx.breakdown.posix.read(last - first);
        ctx.breakdown.posix.write(last - first);
        wb.add(agg_node, agg_node, f.rank_of_writer[agg_writer], first, last - first, read_s);
    }
    rb.local_copy_s = std::max(rb.local_copy_s, static_cast<double>(local_bytes) / ctx.platform.network.memcpy_Bps);
    return true;
}

void two_phase(const RomioContext& ctx, const WriteCall& call)
{
    std::vector<TwoPhaseFile> files;
    for (size_t i = 0; i < call.files.size(); i++)
        if (!call.accesses[i].empty())
            files.push_back(start_two_phase(ctx, call.files[i], call.accesses[i]));
    for (;;) {
        RoundBuilders rb;
        bool any = false;
        Phase write;
        write.label = "write";
        for (auto& t : files) {
            for (size_t a = 0; a < t.aggregators.size(); a++)
                any |= aggregator_round(ctx, t, static_cast<int>(a), rb, *t.writes);
            Phase part = t.writes->finish("write", 0);
            write.flows.insert(write.flows.end(), part.flows.begin(), part.flows.end());
            write.max_process_bytes = std::max(write.max_process_bytes, part.max_process_bytes);
        }
        if (!any)
            return;
        ctx.breakdown.rounds++;
        Phase shuffle;
        shuffle.label = "write";
        shuffle.fixed_s = collective_overhead_s(ctx.platform, ctx.total_ranks) + rb.local_copy_s;
        for (auto& [key, flow] : rb.shuffle)
            shuffle.flows.push_back(flow);
        ctx.sink(std::move(shuffle));
        ctx.sink(std::move(write));
    }
}

// Each writer's pieces, writer by writer, in file order within a writer (a counting sort).
std::vector<const Access*> grouped_by_writer(const std::vector<Access>& sorted)
{
    std::vector<size_t> first;  // per writer: its first slot in the output
    for (const auto& a : sorted) {
        if (a.writer >= first.size())
            first.resize(a.writer + 1, 0);
        first[a.writer]++;
    }
    size_t total = 0;
    for (auto& n : first)
        total += std::exchange(n, total);
    std::vector<const Access*> out(sorted.size());
    for (const auto& a : sorted)
        out[first[a.writer]++] = &a;
    return out;
}

// One rank's noncontiguous pieces written through data sieving (data_sieving.hpp): each run
// of windows is read (time on the target, RPCs), then written whole.
// `first`..`last`: the rank's pieces, in file order.
void sieve(const RomioContext& ctx, WritePhaseBuilder& wb, const FileSettings& settings,
           const Access* const* first, const Access* const* last, int node, int key, int rank)
{
    std::vector<SievePiece> requested;
    requested.reserve(static_cast<size_t>(last - first));
    for (; first != last; ++first)
        requested.push_back({(*first)->offset, (*first)->length});
    const auto& fs = ctx.platform.fs;
    uint64_t window = settings.ind_wr_buffer_size;
    uint64_t rpcs_per_window = (window + fs.rpc_max_bytes - 1) / fs.rpc_max_bytes;
    for (const SieveRun& run : sieve_runs(requested, window)) {
        uint64_t read_rpcs = run.windows * rpcs_per_window;
        double read_s = static_cast<double>(run.length) / fs.target_Bps + static_cast<double>(read_rpcs) * fs.rpc_overhead_s;
        ctx.breakdown.sieve_read_bytes += run.length;
        ctx.breakdown.rpcs += read_rpcs;
        ctx.breakdown.posix.read(run.length, run.windows);
        ctx.breakdown.posix.write(run.length, run.windows);
        wb.add(node, key, rank, run.offset, run.length, read_s);
    }
}

// Each rank writes its own pieces; with data sieving a noncontiguous rank reads and writes
// windows around its pieces instead (sieve).
void independent(const RomioContext& ctx, const WriteCall& call)
{
    Phase all;
    all.label = "write";
    for (size_t i = 0; i < call.files.size(); i++) {
        OpenFile& f = *call.files[i];
        WritePhaseBuilder wb(ctx.platform, f.striping, *f.holders, ctx.breakdown);
        bool sieves = f.settings->ds_write != Hint::disable;
        std::vector<const Access*> by_writer = grouped_by_writer(call.accesses[i]);
        for (size_t begin = 0, end; begin < by_writer.size(); begin = end) {
            uint32_t w = by_writer[begin]->writer;
            for (end = begin + 1; end < by_writer.size() && by_writer[end]->writer == w; end++) {
            }
            int node = f.node_of_writer[w];
            int rank = f.rank_of_writer[w];
            int key = ctx.aggregate ? node : rank;
            if (sieves && end - begin > 1) {
                sieve(ctx, wb, *f.settings, by_writer.data() + begin, by_writer.data() + end, node, key, rank);
                continue;
            }
            for (size_t k = begin; k < end; k++) {
                ctx.breakdown.posix.write(by_writer[k]->length);
                wb.add(node, key, rank, by_writer[k]->offset, by_writer[k]->length);
            }
        }
        Phase part = wb.finish("write", 0);
        all.flows.insert(all.flows.end(), part.flows.begin(), part.flows.end());
        all.max_process_bytes = std::max(all.max_process_bytes, part.max_process_bytes);
    }
    ctx.sink(std::move(all));
}

}  // namespace

void romio_write(const RomioContext& ctx, const WriteCall& call)
{
    bool cb = call.collective && !call.files.empty() &&
              use_collective_buffering(*call.files.front()->settings, call.accesses);
    ctx.breakdown.write_paths.push_back(cb ? "two-phase" : "independent");
    if (call.collective && !call.files.empty()) {
        Phase sync;
        sync.label = "write";
        sync.fixed_s = collective_write_call_s(ctx.platform, ctx.total_ranks, call_oversubscription(ctx.platform, call));
        ctx.sink(std::move(sync));
    }
    if (cb)
        two_phase(ctx, call);
    else
        independent(ctx, call);
}

}  // namespace iosim
