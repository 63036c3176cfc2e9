#include "mpiio/mpi_io.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "mpiio/data_sieving.hpp"
#include "mpiio/ompio.hpp"
#include "mpiio/romio.hpp"

namespace iosim {

WritePhaseBuilder& WriteBuilders::bound(size_t i, const OpenFile& f)
{
    while (builders_.size() <= i)
        builders_.push_back(std::make_unique<WritePhaseBuilder>(platform_, breakdown_));
    builders_[i]->bind(f.striping, *f.holders, f.id);
    return *builders_[i];
}

double collective_overhead_s(const Platform& p, int ranks, double oversubscription)
{
    double step = oversubscription > 1 && p.network.oversubscribed_step_s > 0 ? p.network.oversubscribed_step_s
                                                                               : p.network.collective_step_s;
    return step * std::ceil(std::log2(std::max(2, ranks)));
}

// The step of the library above MPI-IO in a collective write: HDF5 1.10's allreduce of the
// I/O mode decision.
constexpr int library_call_steps = 1;
// The steps of a collective write call whose MPI-IO layer is not ROMIO's generic one (OMPIO,
// HDF5's collective metadata write): the library's, an exchange of the ranks' offsets in two
// steps, and a closing synchronisation.
constexpr int collective_call_steps = library_call_steps + 3;

double collective_steps_s(const Platform& p, int ranks, double oversubscription, int steps)
{
    return steps * collective_overhead_s(p, ranks, oversubscription) * oversubscription;
}

double collective_write_call_s(const Platform& p, int ranks, double oversubscription)
{
    return collective_steps_s(p, ranks, oversubscription, collective_call_steps);
}

void charge_collective_call(const MpiIoContext& ctx, const WriteCall& call, int mpi_io_steps)
{
    Phase sync;
    sync.label = "write";
    int library_steps = call.files.front()->library ? library_call_steps : 0;
    sync.fixed_s = collective_steps_s(ctx.platform, ctx.total_ranks, call_oversubscription(ctx.platform, call),
                                      library_steps + mpi_io_steps);
    ctx.sink(std::move(sync));
}

double oversubscription(const Platform& p, const std::vector<int>& node_of_rank)
{
    int most = 0;
    std::map<int, int> per_node;
    for (int node : node_of_rank)
        most = std::max(most, ++per_node[node]);
    return std::max(1.0, static_cast<double>(most) / p.compute.cores_per_node);
}

double call_oversubscription(const Platform& p, const WriteCall& call)
{
    std::vector<int> nodes;
    for (const OpenFile* f : call.files)
        nodes.insert(nodes.end(), f->node_of_writer.begin(), f->node_of_writer.end());
    return oversubscription(p, nodes);
}

namespace {

// One rank's noncontiguous pieces written through data sieving (data_sieving.hpp): each run
// of windows is read (time on the target, RPCs), then written whole.
void sieve(const MpiIoContext& ctx, WritePhaseBuilder& wb, const FileSettings& settings,
           const std::function<void(const PieceFn&)>& walk, uint64_t access_end, int node, int key, int rank)
{
    const auto& fs = ctx.platform.fs;
    uint64_t window = settings.ind_wr_buffer_size;
    uint64_t rpcs_per_window = (window + fs.rpc_max_bytes - 1) / fs.rpc_max_bytes;
    SieveWindows windows(window, access_end, [&](const SieveRun& run) {
        uint64_t read_rpcs = run.windows * rpcs_per_window;
        double read_s = static_cast<double>(run.length) / fs.target_Bps + static_cast<double>(read_rpcs) * fs.rpc_overhead_s;
        ctx.breakdown.sieve_read_bytes += run.length;
        ctx.breakdown.rpcs += read_rpcs;
        ctx.breakdown.posix.read(run.length, run.windows);
        ctx.breakdown.posix.write(run.length, run.windows);
        wb.add(node, key, rank, run.offset, run.length, read_s);
    });
    walk([&](uint64_t offset, uint64_t length) { windows.add({offset, length}); });
    windows.finish();
}

// A rank's pieces as one pass sees them: how many, where they start and end, and whether
// each follows the one before without a gap.
struct WriterPieces {
    uint64_t count = 0, first = 0, end = 0, max_end = 0;
    bool touching = true;
};

WriterPieces survey(const std::function<void(const PieceFn&)>& walk)
{
    WriterPieces p;
    walk([&](uint64_t offset, uint64_t length) {
        if (p.count == 0)
            p.first = offset;
        else if (offset != p.end)
            p.touching = false;
        p.end = offset + length;
        p.max_end = std::max(p.max_end, p.end);
        p.count++;
    });
    return p;
}

}  // namespace

// A rank whose pieces follow each other without a gap has a contiguous file type: MPICH marks
// a struct whose size equals its extent, its blocks in order, as contiguous (MPIR_Type_struct),
// ROMIO's ADIOI_Datatype_iscontig reports it so, and ADIOI_GEN_WriteStridedColl writes it with
// one ADIO_WriteContig: nothing to sieve. This is HDF5's linked-chunk write of a rank's
// adjacent whole chunks (H5D__link_chunk_collective_io).
void independent_write(const MpiIoContext& ctx, const WriteCall& call, bool data_sieving)
{
    Phase all;
    all.label = "write";
    for (size_t i = 0; i < call.files.size(); i++) {
        OpenFile& f = *call.files[i];
        WritePhaseBuilder& wb = ctx.builders->bound(0, f);
        bool sieves = data_sieving && f.settings->ds_write != Hint::disable;
        call.pieces[i].for_each_writer([&](uint32_t w, const std::function<void(const PieceFn&)>& walk) {
            int node = f.node_of_writer[w];
            int rank = f.rank_of_writer[w];
            int key = ctx.aggregate ? node : rank;
            WriterPieces p = sieves ? survey(walk) : WriterPieces{};
            if (sieves && p.count > 1) {
                if (!p.touching)
                    return sieve(ctx, wb, *f.settings, walk, p.max_end, node, key, rank);
                ctx.breakdown.posix.write(p.end - p.first);
                wb.add(node, key, rank, p.first, p.end - p.first);
                return;
            }
            walk([&](uint64_t offset, uint64_t length) {
                ctx.breakdown.posix.write(length);
                wb.add(node, key, rank, offset, length);
            });
        });
        add_flows(all, wb.finish("write", 0));
    }
    ctx.sink(std::move(all));
}

namespace {

// `from` appended to `into`, taken whole where `into` is empty (a call's first file, each
// round's write phase): no copy.
template <class T>
void append(std::vector<T>& into, std::vector<T>&& from)
{
    if (into.empty())
        into = std::move(from);
    else
        into.insert(into.end(), from.begin(), from.end());
}

}  // namespace

void add_flows(Phase& into, Phase&& from)
{
    append(into.flows, std::move(from.flows));
    append(into.extents, std::move(from.extents));
    into.max_process_bytes = std::max(into.max_process_bytes, from.max_process_bytes);
    into.max_process_calls = std::max(into.max_process_calls, from.max_process_calls);
    into.contended_write_s = std::max(into.contended_write_s, from.contended_write_s);
    into.lock_wait_s = std::max(into.lock_wait_s, from.lock_wait_s);
    into.range_lock_wait_s = std::max(into.range_lock_wait_s, from.range_lock_wait_s);
}

void mpi_io_write(const MpiIoContext& ctx, const WriteCall& call)
{
    if (call.files.empty() || call.files.front()->settings->mpi_io != MpiIo::ompio)
        return romio_write(ctx, call);  // its collective steps depend on its choice
    if (call.collective)
        charge_collective_call(ctx, call, collective_call_steps - library_call_steps);
    ompio_write(ctx, call);
}

}  // namespace iosim
