#include "iolib/hdf5_fill.hpp"

#include <algorithm>

#include "mpiio/first_touch.hpp"
#include "selection/box_region.hpp"
#include "selection/listed_region.hpp"

namespace iosim {

bool filled_at_allocation(FillTime fill_time, FillValue fill_value, bool chunked)
{
    if (fill_time != FillTime::ifset)
        return fill_time == FillTime::alloc;
    return fill_value == FillValue::user || (chunked && fill_value == FillValue::fallback);
}

namespace {

// HDF5's fill buffer: H5D__fill_init sizes it to the transfer list's max_temp_buf (H5Pset_buffer,
// 1 MiB by default), so a contiguous fill is written that much at a time.
constexpr uint64_t FILL_BUFFER_BYTES = 1 << 20;

// Contiguous storage's fill (H5D__contig_fill, H5Dcontig.c): rank 0 alone, independently, a
// fill buffer per write, while the others wait at a barrier.
std::shared_ptr<const Region> contiguous_fill_region(uint64_t base, uint64_t bytes, uint64_t writers, bool walk)
{
    if (!walk) {
        uint64_t buffers = (bytes + FILL_BUFFER_BYTES - 1) / FILL_BUFFER_BYTES;
        return std::make_shared<BoxRegion>(
            base, std::vector<uint64_t>{bytes},
            std::vector<AxisSlots>{AxisSlots::progression(0, FILL_BUFFER_BYTES, buffers, FILL_BUFFER_BYTES, bytes)},
            std::vector<uint64_t>{0}, 0, 1);
    }
    std::vector<Access> acc;
    for (uint64_t at = 0; at < bytes; at += FILL_BUFFER_BYTES)
        acc.push_back({base + at, std::min(FILL_BUFFER_BYTES, bytes - at), 0});
    return listed(std::move(acc), writers);
}

// Who writes the fill values of dataset d when parallel HDF5 1.10 allocates it: contiguous,
// above; chunked (H5D__chunk_collective_fill, H5Dchunk.c): every rank takes chunks/P
// consecutive chunks, the first chunks%P ranks one more of those left over, and all write them
// in one collective call.
std::shared_ptr<const Region> fill_region(const LibrarySession& session, size_t d, bool walk)
{
    const DatasetLayout& lay = session.layout.datasets[d];
    uint64_t writers = std::max<uint64_t>(1, session.writers);
    if (lay.chunk_dims.empty())
        return contiguous_fill_region(lay.base, session.file.datasets[d].bytes(), writers, walk);
    std::vector<Access> acc;
    uint64_t chunks = lay.chunk_addr.size(), each = chunks / writers;
    for (uint64_t c = 0; c < chunks; c++) {
        auto writer = static_cast<uint32_t>(c < each * writers ? c / each : c - each * writers);
        acc.push_back({lay.chunk_addr[c], lay.chunk_bytes, writer});
    }
    return listed(std::move(acc), writers);
}

// Before a chunked fill every rank, whether it writes a chunk or not, sets up a fill buffer of
// one chunk: H5D__chunk_allocate (H5Dchunk.c) calls H5D__fill_init with the chunk size and no
// element count, which allocates it and writes the fill value (or zeros) through it (H5Dfill.c). A
// freshly allocated buffer is first touched (first_touch.hpp; on a platform that gives no
// first-touch rate, at its memcpy rate); the ranks of a node beyond its cores wait for a core.
Phase fill_buffer_setup(const Platform& p, const DatasetLayout& lay, const WriteCall& call)
{
    return fixed_phase("write", fresh_buffer_s(p.network, lay.chunk_bytes) * call_oversubscription(p, call));
}

}  // namespace

void fill_at_allocation(const MpiIoContext& ctx, const LibrarySession& session)
{
    const std::vector<DatasetSettings>& datasets = session.settings.datasets;
    for (size_t d = 0; d < datasets.size(); d++) {
        bool chunked = !session.layout.datasets[d].chunk_dims.empty();
        if (!filled_at_allocation(datasets[d].fill_time, datasets[d].fill_value, chunked))
            continue;
        WriteCall call = session.call(chunked, {fill_region(session, d, ctx.walk_pieces)});
        if (chunked) {
            ctx.sink(fill_buffer_setup(ctx.platform, session.layout.datasets[d], call));
            mpi_io_write(ctx, call);
        } else {  // each fill buffer its own contiguous MPI_File_write_at: nothing to sieve
            independent_write(ctx, call, false);
        }
    }
}

void fill_contiguous(const MpiIoContext& ctx, const LibrarySession& session, uint64_t base, uint64_t bytes)
{
    uint64_t writers = std::max<uint64_t>(1, session.writers);
    independent_write(ctx, session.call(false, {contiguous_fill_region(base, bytes, writers, ctx.walk_pieces)}),
                      false);
}

}  // namespace iosim
