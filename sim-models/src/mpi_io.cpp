#include "mpi_io.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "data_sieving.hpp"
#include "ompio.hpp"
#include "romio.hpp"

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

double call_oversubscription(const Platform& p, const WriteCall& call)
{
    std::vector<int> nodes;
    for (const OpenFile* f : call.files)
        nodes.insert(nodes.end(), f->node_of_writer.begin(), f->node_of_writer.end());
    return oversubscription(p, nodes);
}

namespace {

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
void sieve(const MpiIoContext& ctx, WritePhaseBuilder& wb, const FileSettings& settings,
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

// Whether a rank's pieces (in file order) follow each other without a gap. Its file type is
// then contiguous: MPICH marks a struct whose size equals its extent, its blocks in order,
// as contiguous (MPIR_Type_struct), ROMIO's ADIOI_Datatype_iscontig reports it so, and
// ADIOI_GEN_WriteStridedColl writes it with one ADIO_WriteContig: nothing to sieve. This is
// HDF5's linked-chunk write of a rank's adjacent whole chunks (H5D__link_chunk_collective_io).
bool touching(const Access* const* first, const Access* const* last)
{
    for (const Access* const* a = first + 1; a < last; ++a)
        if ((*a)->offset != (*(a - 1))->offset + (*(a - 1))->length)
            return false;
    return true;
}

}  // namespace

void independent_write(const MpiIoContext& ctx, const WriteCall& call, bool data_sieving)
{
    Phase all;
    all.label = "write";
    for (size_t i = 0; i < call.files.size(); i++) {
        OpenFile& f = *call.files[i];
        WritePhaseBuilder wb(ctx.platform, f.striping, *f.holders, ctx.breakdown);
        bool sieves = data_sieving && f.settings->ds_write != Hint::disable;
        std::vector<const Access*> by_writer = grouped_by_writer(call.accesses[i]);
        for (size_t begin = 0, end; begin < by_writer.size(); begin = end) {
            uint32_t w = by_writer[begin]->writer;
            for (end = begin + 1; end < by_writer.size() && by_writer[end]->writer == w; end++) {
            }
            int node = f.node_of_writer[w];
            int rank = f.rank_of_writer[w];
            int key = ctx.aggregate ? node : rank;
            const Access* const* first = by_writer.data() + begin;
            const Access* const* last = by_writer.data() + end;
            if (sieves && end - begin > 1) {
                if (!touching(first, last)) {
                    sieve(ctx, wb, *f.settings, first, last, node, key, rank);
                    continue;
                }
                uint64_t length = (*(last - 1))->offset + (*(last - 1))->length - (*first)->offset;
                ctx.breakdown.posix.write(length);
                wb.add(node, key, rank, (*first)->offset, length);
                continue;
            }
            for (size_t k = begin; k < end; k++) {
                ctx.breakdown.posix.write(by_writer[k]->length);
                wb.add(node, key, rank, by_writer[k]->offset, by_writer[k]->length);
            }
        }
        add_flows(all, wb.finish("write", 0));
    }
    ctx.sink(std::move(all));
}

void add_flows(Phase& into, Phase&& from)
{
    into.flows.insert(into.flows.end(), from.flows.begin(), from.flows.end());
    into.max_process_bytes = std::max(into.max_process_bytes, from.max_process_bytes);
}

void mpi_io_write(const MpiIoContext& ctx, const WriteCall& call)
{
    if (call.collective && !call.files.empty()) {
        Phase sync;
        sync.label = "write";
        sync.fixed_s = collective_write_call_s(ctx.platform, ctx.total_ranks, call_oversubscription(ctx.platform, call));
        ctx.sink(std::move(sync));
    }
    if (!call.files.empty() && call.files.front()->settings->mpi_io == MpiIo::ompio)
        ompio_write(ctx, call);
    else
        romio_write(ctx, call);
}

}  // namespace iosim
