#include "selection/access.hpp"

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
    std::vector<uint64_t> first(nd), last(nd);
    for (size_t a = 0; a < nd; a++) {
        first[a] = start[a] / layout.chunk_dims[a];
        last[a] = (start[a] + count[a] - 1) / layout.chunk_dims[a];
    }
    std::vector<uint64_t> in_start(nd), in_count(nd);
    for_each_chunk(layout, first, last, [&](const std::vector<uint64_t>& c, uint64_t index) {
        for (size_t a = 0; a < nd; a++) {
            uint64_t lo = std::max(start[a], c[a] * layout.chunk_dims[a]);
            uint64_t hi = std::min(start[a] + count[a], (c[a] + 1) * layout.chunk_dims[a]);
            in_start[a] = lo - c[a] * layout.chunk_dims[a];
            in_count[a] = hi - lo;
        }
        box_runs(in_start, in_count, layout.chunk_dims, layout.chunk_addr[index], ds.element_bytes, writer, out);
    });
}

bool same_writer(const Access& a, const Access& b)
{
    return a.writer == b.writer;
}

// A contiguous dataset's runs straight in file order: every row of the axes before the last
// split axis crosses that axis' slots in order. The axes after it belong whole to every block.
// Same runs as box_runs() per writer, sorted, without the sort.
void contiguous_runs(const Dataset& ds, const std::vector<uint64_t>& dims, uint64_t base, std::vector<Access>& out)
{
    size_t nd = dims.size();
    if (std::any_of(dims.begin(), dims.end(), [](uint64_t n) { return n == 0; }))
        return;
    size_t split = 0;  // the last axis with more than one slot (0 if none)
    for (size_t a = 0; a < nd; a++)
        if (ds.grid[a] > 1)
            split = a;
    uint64_t tail = ds.element_bytes;  // bytes of one index step along `split`
    for (size_t a = split + 1; a < nd; a++)
        tail *= dims[a];
    std::vector<uint64_t> writer_stride(nd, 1);
    for (size_t a = nd - 1; a-- > 0;)
        writer_stride[a] = writer_stride[a + 1] * ds.grid[a + 1];
    std::vector<uint64_t> idx(split, 0), slot(split, 0);
    auto settle = [&](size_t a) {  // the slot holding idx[a], past empty slots
        while (idx[a] >= ds.starts[a][slot[a]] + ds.extents[a][slot[a]])
            slot[a]++;
    };
    for (size_t a = 0; a < split; a++)
        settle(a);
    uint64_t rows = 1;
    for (size_t a = 0; a < split; a++)
        rows *= dims[a];
    out.reserve(out.size() + rows * ds.grid[split]);
    for (;;) {
        uint64_t row = 0, writer = 0;
        for (size_t a = 0; a < split; a++) {
            row = row * dims[a] + idx[a];
            writer += slot[a] * writer_stride[a];
        }
        for (uint64_t s = 0; s < ds.grid[split]; s++) {
            uint64_t n = ds.extents[split][s];
            if (n > 0)
                append_touching(out,
                                {base + (row * dims[split] + ds.starts[split][s]) * tail, n * tail,
                                 static_cast<uint32_t>(writer + s * writer_stride[split])},
                                same_writer);
        }
        size_t a = split;
        while (a > 0) {
            a--;
            if (++idx[a] < dims[a]) {
                settle(a);
                break;
            }
            idx[a] = 0;
            slot[a] = 0;
            settle(a);
            if (a == 0)
                return;
        }
        if (split == 0)
            return;
    }
}

// HDF5's H5Sselect_hyperslab(start, stride, count, block) as boxes: axes whose blocks touch
// (stride == block, or one block) are one box side, so a box is a contiguous block's extent.
void hyperslab_boxes(uint32_t writer, const std::vector<uint64_t>& start, const std::vector<uint64_t>& stride,
                     const std::vector<uint64_t>& count, const std::vector<uint64_t>& block,
                     std::vector<Box>& out)
{
    size_t nd = start.size();
    std::vector<uint64_t> steps(nd), side(nd), idx(nd, 0);
    for (size_t a = 0; a < nd; a++) {
        bool touching = count[a] == 1 || stride[a] == block[a];
        steps[a] = touching ? 1 : count[a];
        side[a] = touching ? count[a] * block[a] : block[a];
        if (side[a] == 0 || steps[a] == 0)
            return;
    }
    for (;;) {
        Box box{writer, start, side};
        for (size_t a = 0; a < nd; a++)
            box.start[a] += idx[a] * stride[a];
        out.push_back(std::move(box));
        size_t a = nd;
        while (a-- > 0) {
            if (++idx[a] < steps[a])
                break;
            idx[a] = 0;
        }
        if (a == static_cast<size_t>(-1))
            return;
    }
}

}  // namespace

std::vector<Box> selection_boxes(const Selection& selection, const std::vector<uint64_t>& origin)
{
    std::vector<Box> boxes;
    if (selection.grid) {
        const Dataset& grid = selection.decomposition;
        for (uint64_t w = 0; w < grid.writers(); w++) {
            Box box{static_cast<uint32_t>(w), {}, {}};
            grid.block(w, box.start, box.count);
            for (size_t a = 0; a < box.start.size() && a < origin.size(); a++)
                box.start[a] += origin[a];
            boxes.push_back(std::move(box));
        }
        return boxes;
    }
    for (const HyperslabRun& r : selection.runs)
        for (uint64_t k = 0; k < r.writers; k++) {
            std::vector<uint64_t> s(r.start);
            for (size_t a = 0; a < s.size(); a++)
                s[a] += k * r.start_step[a];
            hyperslab_boxes(static_cast<uint32_t>(r.first_writer + k * r.writer_step), s, r.stride, r.count, r.block,
                            boxes);
        }
    return boxes;
}

void sort_by_offset(std::vector<Access>& out, size_t from)
{
    auto by_offset = [](const Access& a, const Access& b) { return a.offset < b.offset; };
    auto first = out.begin() + static_cast<std::ptrdiff_t>(from);
    if (!std::is_sorted(first, out.end(), by_offset))
        std::sort(first, out.end(), by_offset);
}

void box_accesses(const Dataset& ds, const DatasetLayout& layout, const std::vector<Box>& boxes,
                  std::vector<Access>& out)
{
    auto dims = ds.dims();
    for (const Box& b : boxes) {
        if (std::any_of(b.count.begin(), b.count.end(), [](uint64_t n) { return n == 0; }))
            continue;
        if (layout.chunk_dims.empty())
            box_runs(b.start, b.count, dims, layout.base, ds.element_bytes, b.writer, out);
        else
            chunked_runs(ds, layout, b.start, b.count, b.writer, out);
    }
}

void dataset_accesses(const Dataset& ds, const DatasetLayout& layout, std::vector<Access>& out)
{
    if (layout.chunk_dims.empty()) {
        contiguous_runs(ds, ds.dims(), layout.base, out);
        return;
    }
    size_t first = out.size();
    std::vector<uint64_t> start, count;
    for (uint64_t w = 0; w < ds.writers(); w++) {
        ds.block(w, start, count);
        bool empty = std::any_of(count.begin(), count.end(), [](uint64_t n) { return n == 0; });
        if (!empty)
            chunked_runs(ds, layout, start, count, static_cast<uint32_t>(w), out);
    }
    sort_by_offset(out, first);
}

}  // namespace iosim
