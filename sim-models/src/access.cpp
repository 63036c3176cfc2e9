#include "access.hpp"

#include <algorithm>

namespace iosim {

namespace {

// Runs of a box (start, count) inside a row-major array of `dims` stored from `base`.
// Trailing axes that the box covers fully merge into longer runs.
void box_runs(const std::vector<uint64_t>& start, const std::vector<uint64_t>& count,
              const std::vector<uint64_t>& dims, uint64_t base, uint64_t elem, uint32_t writer,
              std::vector<Access>& out)
{
    size_t nd = dims.size();
    size_t inner = nd - 1;  // axes [inner, nd) form one contiguous run
    while (inner > 0 && count[inner] == dims[inner] && start[inner] == 0)
        inner--;
    uint64_t run = elem;
    for (size_t a = inner; a < nd; a++)
        run *= count[a];
    std::vector<uint64_t> stride(nd, 1);
    for (size_t a = nd - 1; a-- > 0;)
        stride[a] = stride[a + 1] * dims[a + 1];
    std::vector<uint64_t> idx(inner, 0);
    for (;;) {
        uint64_t lin = 0;
        for (size_t a = 0; a < nd; a++)
            lin += (start[a] + (a < inner ? idx[a] : 0)) * stride[a];
        out.push_back({base + lin * elem, run, writer});
        size_t a = inner;
        while (a > 0) {
            a--;
            if (++idx[a] < count[a])
                break;
            idx[a] = 0;
            if (a == 0)
                return;
        }
        if (inner == 0)
            return;
    }
}

void chunked_runs(const Dataset& ds, const DatasetLayout& layout, const std::vector<uint64_t>& start,
                  const std::vector<uint64_t>& count, uint32_t writer, std::vector<Access>& out)
{
    size_t nd = start.size();
    std::vector<uint64_t> first(nd), last(nd), c(nd);
    for (size_t a = 0; a < nd; a++) {
        first[a] = start[a] / layout.chunk_dims[a];
        last[a] = (start[a] + count[a] - 1) / layout.chunk_dims[a];
    }
    c = first;
    std::vector<uint64_t> in_start(nd), in_count(nd);
    for (;;) {
        uint64_t index = 0;
        for (size_t a = 0; a < nd; a++) {
            index = index * layout.chunk_grid[a] + c[a];
            uint64_t lo = std::max(start[a], c[a] * layout.chunk_dims[a]);
            uint64_t hi = std::min(start[a] + count[a], (c[a] + 1) * layout.chunk_dims[a]);
            in_start[a] = lo - c[a] * layout.chunk_dims[a];
            in_count[a] = hi - lo;
        }
        box_runs(in_start, in_count, layout.chunk_dims, layout.chunk_addr[index], ds.element_bytes, writer, out);
        size_t a = nd;
        while (a-- > 0) {
            if (++c[a] <= last[a])
                break;
            c[a] = first[a];
        }
        if (a == static_cast<size_t>(-1))
            return;
    }
}

}  // namespace

void dataset_accesses(const Dataset& ds, const DatasetLayout& layout, std::vector<Access>& out)
{
    auto dims = ds.dims();
    std::vector<uint64_t> start, count;
    for (uint64_t w = 0; w < ds.writers(); w++) {
        ds.block(w, start, count);
        bool empty = std::any_of(count.begin(), count.end(), [](uint64_t n) { return n == 0; });
        if (empty)
            continue;
        if (layout.chunk_dims.empty())
            box_runs(start, count, dims, layout.base, ds.element_bytes, static_cast<uint32_t>(w), out);
        else
            chunked_runs(ds, layout, start, count, static_cast<uint32_t>(w), out);
    }
}

}  // namespace iosim
