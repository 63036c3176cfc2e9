#include "run/planner.hpp"

#include <algorithm>
#include <numeric>

#include "fs/file_creates.hpp"
#include "iolib/io_library.hpp"
#include "mpiio/repeat_fold.hpp"
#include "selection/listed_region.hpp"
#include "selection/selection_regions.hpp"

namespace iosim {

int ranks_per_node(const Platform& p, const Workload& w)
{
    return w.ranks_per_node > 0 ? w.ranks_per_node : p.compute.cores_per_node;
}

namespace {

// Instance i of a session on a 1 TiB slice of a virtual address space, so that concurrently
// written files never share a lock unit.
constexpr int instance_shift = 40;

std::vector<int> writers_of(const FileSession& f, int ranks, int instance)
{
    int n = f.mode == FileMode::per_rank ? 1 : f.writers_per_instance(ranks);
    std::vector<int> r(n);
    int base = f.mode == FileMode::per_rank ? instance : instance * n;
    std::iota(r.begin(), r.end(), base);
    return r;
}

// Packed: consecutive ranks fill a node. Target-grouped: ranks sorted by the target of their
// first byte in the first file, then packed, so that a target's writers share few nodes.
std::vector<int> place_ranks(const Platform& p, const Workload& w, const std::vector<FileSettings>& settings,
                             const std::vector<const FileLayout*>& layouts, Placement placement)
{
    int rpn = ranks_per_node(p, w);
    std::vector<int> order(w.ranks);
    std::iota(order.begin(), order.end(), 0);
    if (placement == Placement::target_grouped && !w.files.empty() && !w.files[0].datasets.empty()) {
        const Dataset& ds = w.files[0].datasets[0];
        PieceSet first({dataset_region(ds, layouts[0]->datasets[0])}, ds.writers(), 0);
        std::vector<WriterExtent> extents = first.writer_extents();
        Striping st = file_striping(p, settings[0], 0);
        std::vector<int> target(w.ranks, 0);
        for (size_t writer = 0; writer < extents.size() && writer < target.size(); writer++)
            if (!extents[writer].empty())
                target[writer] = st.target_of(extents[writer].first);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return target[a] < target[b]; });
    }
    std::vector<int> node(w.ranks);
    for (int slot = 0; slot < w.ranks; slot++)
        node[order[slot]] = slot / rpn;
    return node;
}

// Metadata written at a flush or close: one collective write, or one small write per entry
// from rank 0.
double metadata_flush_cost(const Platform& p, const FileSettings& s, const FileLayout& layout, int writers,
                           double oversubscription)
{
    if (layout.metadata_entries == 0)
        return 0;
    // HDF5 1.10 writes the dirty entries with one collective MPI_File_write_at_all.
    if (s.coll_metadata_write)
        return collective_write_call_s(p, writers, oversubscription) + p.fs.metadata_io_s;
    return static_cast<double>(layout.metadata_entries) * p.fs.metadata_io_s;
}

struct Session {
    const FileSession* file;
    const FileLayout* layout;
    std::vector<OpenFile> files;
    std::vector<LockHolders> holders;
};

// The pieces a session writes: one set per call, its regions shared by the instances, each
// instance's on its own slice of the address space.
PieceSet instance_pieces(const Session& ses, const std::vector<std::shared_ptr<const Region>>& regions, size_t i)
{
    uint64_t shift = ses.files.size() > 1 ? static_cast<uint64_t>(i) << instance_shift : 0;
    return PieceSet(regions, ses.files[i].node_of_writer.size(), shift);
}

// The regions of one write call over `datasets` of the session's decompositions (one-call or
// one per dataset).
std::vector<std::shared_ptr<const Region>> dataset_call_regions(const Session& ses, const std::vector<size_t>& datasets,
                                                                bool walk)
{
    uint64_t writers = ses.files.front().node_of_writer.size();
    if (walk) {  // every piece, as dataset_accesses lists them
        std::vector<Access> acc;
        for (size_t d : datasets)
            dataset_accesses(ses.file->datasets[d], ses.layout->datasets[d], acc);
        return {listed(std::move(acc), writers)};
    }
    std::vector<std::shared_ptr<const Region>> regions;
    for (size_t d : datasets)
        regions.push_back(dataset_region(ses.file->datasets[d], ses.layout->datasets[d]));
    return regions;
}

// The regions of repetition k of one of the session's calls (WORKLOAD.md `calls`).
std::vector<std::shared_ptr<const Region>> replayed_call_regions(const Session& ses, const IoCall& call, uint64_t k,
                                                                 bool walk)
{
    uint64_t writers = ses.files.front().node_of_writer.size();
    std::vector<std::shared_ptr<const Region>> regions;
    std::vector<Access> acc;
    for (size_t i = 0; i < call.datasets.size(); i++) {
        const Dataset& ds = ses.file->datasets[call.datasets[i]];
        const DatasetLayout& layout = ses.layout->datasets[call.datasets[i]];
        auto origin = call.origin_at(i, k);
        if (walk || (!layout.chunk_dims.empty() && !call.selections[i].grid))
            box_accesses(ds, layout, selection_boxes(call.selections[i], origin), acc);
        else
            for (auto& r : selection_regions(ds, layout, call.selections[i], origin))
                regions.push_back(std::move(r));
    }
    if (!acc.empty() || regions.empty())
        regions.push_back(listed(std::move(acc), writers));
    return regions;
}

// Every piece of dataset d that the session writes (all its calls), in file order.
std::vector<Access> written_ranges(const Session& ses, size_t d)
{
    std::vector<Access> acc;
    if (ses.file->calls.empty()) {
        dataset_accesses(ses.file->datasets[d], ses.layout->datasets[d], acc);
        return acc;
    }
    for (const IoCall& call : ses.file->calls)
        for (uint64_t k = 0; k < call.times; k++)
            for (size_t i = 0; i < call.datasets.size(); i++)
                if (call.datasets[i] == d)
                    box_accesses(ses.file->datasets[d], ses.layout->datasets[d],
                                 selection_boxes(call.selections[i], call.origin_at(i, k)), acc);
    sort_by_offset(acc);
    return acc;
}

// The workload's `session`-th file session, opened.
Session open_session(const Platform& p, const Workload& w, size_t session, const FileSettings& s,
                     const FileLayout& layout, const std::vector<int>& node_of_rank)
{
    const FileSession& f = w.files[session];
    Session ses{&f, &layout, {}, {}};
    int n = f.instances(w.ranks);
    ses.files.resize(n);
    ses.holders.resize(n);
    for (int i = 0; i < n; i++) {
        OpenFile& of = ses.files[i];
        of.id = static_cast<uint64_t>(session) << 32 | static_cast<uint32_t>(i);
        of.settings = &s;
        of.striping = file_striping(p, s, n > 1 ? i : 0);
        of.rank_of_writer = writers_of(f, w.ranks, i);
        for (int r : of.rank_of_writer)
            of.node_of_writer.push_back(node_of_rank[r]);
        of.node_run_end.resize(of.node_of_writer.size());
        for (size_t k = of.node_of_writer.size(); k-- > 0;)
            of.node_run_end[k] = k + 1 < of.node_of_writer.size() && of.node_of_writer[k + 1] == of.node_of_writer[k]
                                     ? of.node_run_end[k + 1]
                                     : static_cast<uint32_t>(k + 1);
        of.holders = &ses.holders[i];
        of.library = io_library(f.api).adds_collective_step();
    }
    return ses;
}

// The ranks of a node read through one client cache: the node's Lustre client, or on BG/P the
// I/O node's GPFS client that its compute nodes forward to. Only a cache's first read of the
// superblock reaches the servers.
int client_caches(const Platform& p, const OpenFile& of)
{
    std::vector<int> caches;
    for (int node : of.node_of_writer)
        caches.push_back(p.routers.side == RouterSide::client ? router_of_node(p, node) : node);
    std::sort(caches.begin(), caches.end());
    return static_cast<int>(std::unique(caches.begin(), caches.end()) - caches.begin());
}

double open_cost(const Platform& p, const Session& ses, const FileSettings& s, int writers, double oversubscription)
{
    const FileSession& f = *ses.file;
    int objects = 0;  // every OST object of the layout's components
    for (const LayoutComponent& c : s.components)
        objects += c.mdt ? 0 : c.stripe_count;
    // Each instance's rank creates its file at once; the metadata servers serve them together
    // (file_creates.hpp).
    double create = f.create ? create_files_s(p.fs, ses.files.size(), objects) : 0;
    // Without collective metadata reads each rank reads the superblock and root group itself,
    // through its node's client cache (client_caches).
    double readers = 0;
    if (io_library(f.api).ranks_read_metadata(s))
        for (const OpenFile& of : ses.files)
            readers += client_caches(p, of);
    return create + p.fs.open_s + std::max(1.0, readers) * p.fs.metadata_io_s
           + collective_overhead_s(p, writers, oversubscription);
}

// One write call on every instance of the session, each writing `regions` in its own file.
WriteCall call_on_instances(Session& ses, bool collective, const std::vector<std::shared_ptr<const Region>>& regions)
{
    WriteCall call;
    call.collective = collective;
    for (size_t i = 0; i < ses.files.size(); i++) {
        call.files.push_back(&ses.files[i]);
        call.pieces.push_back(instance_pieces(ses, regions, i));
    }
    return call;
}

// A program's write call, through its file's library.
void write_pieces(const MpiIoContext& ctx, WriteCall call, const IoLibrary& library)
{
    for (const PieceSet& pieces : call.pieces)
        ctx.breakdown.payload_bytes += pieces.bytes();
    library.write(ctx, call);
}

// The interposer sets a forced transfer mode on the call's transfer property list: the
// config's mode for the call's (first) dataset where it sets one, the program's own otherwise.
bool call_collective(const IoCall& c, const FileSettings& s)
{
    const DatasetSettings& d = s.datasets[c.datasets.front()];
    return d.transfer_forced ? d.collective : c.collective;
}

// How a shared file's repetitions of `c` move over its targets (repeat_fold.hpp): each writes
// D bytes further in the file (the origin step over contiguous datasets), so repetitions
// P = stripe / gcd(D, stripe) apart land D / gcd stripes further, on the targets of the last
// layout extent (where a long run's writes go) moved that many places. None for several
// files (each its own striping), chunked datasets, or a Data-on-MDT tail.
StripeShift stripe_shift(const Platform& p, const Session& ses, const IoCall& c)
{
    StripeShift none;
    if (ses.files.size() != 1 || c.origin_step.empty())
        return none;
    uint64_t shift = 0;
    for (size_t i = 0; i < c.datasets.size(); i++) {
        const Dataset& ds = ses.file->datasets[c.datasets[i]];
        if (!ses.layout->datasets[c.datasets[i]].chunk_dims.empty())
            return none;
        std::vector<uint64_t> dims = ds.dims();
        long long d = 0, stride = static_cast<long long>(ds.element_bytes);
        for (size_t a = dims.size(); a-- > 0;) {
            if (a < c.origin_step.size())
                d += c.origin_step[a] * stride;
            stride *= static_cast<long long>(dims[a]);
        }
        if (d <= 0 || (i > 0 && static_cast<uint64_t>(d) != shift))
            return none;
        shift = static_cast<uint64_t>(d);
    }
    const StripeExtent& e = ses.files[0].striping.extents.back();
    if (shift == 0 || e.mdt >= 0 || e.count < 2)
        return none;
    uint64_t g = std::gcd(shift, e.size);
    std::vector<int> cycle;
    for (int j = 0; j < e.count; j++)
        cycle.push_back(e.target_of(static_cast<uint64_t>(j) * e.size));
    return {e.size / g, rotation_along(cycle, (shift / g) % static_cast<uint64_t>(e.count), storage_targets(p))};
}

// A session's calls as the program made them (WORKLOAD.md `calls`): compute, writes, flushes.
void replay_calls(const MpiIoContext& ctx, const FileSession& f, const FileSettings& s, Session& ses,
                  double flush_s)
{
    for (const IoCall& c : f.calls) {
        auto repetition = [&](uint64_t k, const MpiIoContext& into) {
            double compute = k == 0 ? c.compute_before_s : c.compute_between_s;
            if (compute > 0)
                into.sink(fixed_phase("compute", compute));
            if (c.flush) {
                into.sink(fixed_phase("write", flush_s, true));
                return;
            }
            write_pieces(into, call_on_instances(ses, call_collective(c, s),
                                                 replayed_call_regions(ses, c, k, into.walk_pieces)),
                         io_library(f.api));
        };
        // The first repetition (its compute_before_s) is the program's own; the rest may repeat
        // one another (repeat_fold.hpp).
        repetition(0, ctx);
        if (ctx.fold_repeats && c.times >= min_folded_times)
            fold_repetitions(ctx, c.times - 1, [&](uint64_t k, const MpiIoContext& into) { repetition(k + 1, into); },
                             stripe_shift(ctx.platform, ses, c));
        else
            for (uint64_t k = 1; k < c.times; k++)
                repetition(k, ctx);
    }
}

void write_session(const MpiIoContext& ctx, const FileSession& f, const FileSettings& s, Session& ses,
                   double flush_s)
{
    if (!f.calls.empty())
        return replay_calls(ctx, f, s, ses, flush_s);
    auto call_for = [&](const std::vector<size_t>& datasets, bool collective) {
        write_pieces(ctx, call_on_instances(ses, collective, dataset_call_regions(ses, datasets, ctx.walk_pieces)),
                     io_library(f.api));
    };
    if (f.one_call) {
        std::vector<size_t> all(f.datasets.size());
        std::iota(all.begin(), all.end(), 0);
        call_for(all, s.datasets.empty() || s.datasets[0].collective);
    } else {
        for (size_t d = 0; d < f.datasets.size(); d++)
            call_for({d}, s.datasets[d].collective);
    }
    for (int k = 0; k < f.flushes; k++)
        ctx.sink(fixed_phase("write", flush_s, true));
}

// A flush of the library's own in `phase`, as a program's flush call costs: the file synced,
// its metadata written again.
void library_flush(const PhaseSink& sink, Breakdown& bd, const char* phase, double flush_s,
                   uint64_t metadata_writes)
{
    sink(fixed_phase(phase, flush_s, true));
    bd.posix.metadata_writes += metadata_writes;
}

}  // namespace

void plan_run(const Platform& p, const Workload& w, const std::vector<FileSettings>& settings,
              const std::vector<const FileLayout*>& layouts, const PlanOptions& options, Breakdown& bd,
              const PhaseSink& sink, const BlockSink& blocks)
{
    auto node_of_rank = place_ranks(p, w, settings, layouts, options.placement);
    double over = oversubscription(p, node_of_rank);
    bd.bytes_per_target.assign(storage_targets(p), 0);
    WriteBuilders builders(p, bd);
    MpiIoContext ctx{p, options.aggregate, w.ranks, over, bd, sink, options.walk_pieces, blocks, options.fold_repeats,
                     &builders};
    for (size_t i = 0; i < w.files.size(); i++) {
        const FileSession& f = w.files[i];
        const FileSettings& s = settings[i];
        const IoLibrary& library = io_library(f.api);
        int n = f.instances(w.ranks);
        int writers = f.mode == FileMode::per_rank ? 1 : f.writers_per_instance(w.ranks);
        if (f.compute_before_s > 0)
            sink(fixed_phase("compute", f.compute_before_s));
        double create = library.create_datasets_s(p, f, *layouts[i], collective_overhead_s(p, writers, over));
        Session ses = open_session(p, w, i, s, *layouts[i], node_of_rank);
        sink(fixed_phase("open", open_cost(p, ses, s, writers, over) + create));
        if (options.report_ranges)
            for (size_t d = 0; d < f.datasets.size(); d++) {
                bd.dataset_ranges.push_back({f.name, f.datasets[d].name, {}});
                for (const Access& a : written_ranges(ses, d))
                    bd.dataset_ranges.back().ranges.push_back({a.offset, a.length, a.writer});
            }
        library.allocate(ctx, {f, s, *layouts[i], ses.files.front().node_of_writer.size(),
                               [&](bool collective, const std::vector<std::shared_ptr<const Region>>& regions) {
                                   return call_on_instances(ses, collective, regions);
                               }});
        // H5Fflush syncs the file (MPI_File_sync): cached writes reach the targets. Whether
        // H5Fclose waits for them too is the platform's (close_flushes).
        double flush = metadata_flush_cost(p, s, *layouts[i], writers, over);
        uint64_t entries = layouts[i]->metadata_entries;
        uint64_t metadata_writes = static_cast<uint64_t>(n) * (s.coll_metadata_write && entries ? 1 : entries);
        bd.posix.metadata_writes += metadata_writes;
        // A library's flushes: once the file is defined, after the datasets (and their fill);
        // before the close, as its close call's first step.
        if (library.flushes_after_define())
            library_flush(sink, bd, "write", flush, metadata_writes);
        write_session(ctx, f, s, ses, flush);
        if (library.flushes_before_close())
            library_flush(sink, bd, "close", flush, metadata_writes);
        sink(fixed_phase("close", flush + p.fs.close_s + collective_overhead_s(p, writers, over),
                         p.cache.close_flushes));
        bd.file_bytes += layouts[i]->end_of_file * n;
    }
    sum_by_server(p, bd);
}

void sum_by_server(const Platform& p, Breakdown& bd)
{
    bd.bytes_per_server.assign(storage_servers(p), 0);
    for (int t = 0; t < storage_targets(p); t++)
        bd.bytes_per_server[server_of_target(p, t)] += bd.bytes_per_target[t];
}

}  // namespace iosim
