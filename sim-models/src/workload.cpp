#include "workload.hpp"
#include "words.hpp"

#include <nlohmann/json.hpp>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "doc_json.hpp"

extern "C" {
#include "decomposition.h"
#include "workload_check.h"
}

namespace iosim {

FillTime parse_fill_time(const std::string& value, const std::string& where)
{
    return parse_word<FillTime>(
        value, {{"ifset", FillTime::ifset}, {"alloc", FillTime::alloc}, {"never", FillTime::never}},
        where);
}

FillValue parse_fill_value(const std::string& value, const std::string& where)
{
    return parse_word<FillValue>(
        value,
        {{"user", FillValue::user}, {"default", FillValue::fallback}, {"undefined", FillValue::undefined}},
        where);
}

using nlohmann::json;

std::vector<uint64_t> Dataset::dims() const
{
    std::vector<uint64_t> d;
    for (const auto& axis : extents) {
        uint64_t sum = 0;
        for (uint64_t e : axis)
            sum += e;
        d.push_back(sum);
    }
    return d;
}

uint64_t Dataset::bytes() const
{
    uint64_t n = element_bytes;
    for (uint64_t d : dims())
        n *= d;
    return n;
}

uint64_t Dataset::writers() const
{
    uint64_t n = 1;
    for (uint64_t g : grid)
        n *= g;
    return n;
}

void Dataset::block(uint64_t writer, std::vector<uint64_t>& start, std::vector<uint64_t>& count) const
{
    size_t nd = grid.size();
    start.assign(nd, 0);
    count.assign(nd, 0);
    for (size_t a = nd; a-- > 0;) {
        uint64_t slot = writer % grid[a];
        writer /= grid[a];
        count[a] = extents[a][slot];
        start[a] = starts[a][slot];
    }
}

int FileSession::instances(int ranks) const
{
    switch (mode) {
    case FileMode::per_rank: return ranks;
    case FileMode::groups: return groups;
    default: return 1;
    }
}

int FileSession::writers_per_instance(int ranks) const
{
    return ranks / instances(ranks);
}

namespace {

uint64_t U(const doc_node* list, size_t i)
{
    return static_cast<uint64_t>(list->items[i]->i);
}

std::vector<uint64_t> u64s(const doc_node* list)
{
    std::vector<uint64_t> values(list->n);
    for (size_t i = 0; i < list->n; i++)
        values[i] = U(list, i);
    return values;
}

std::string text(const doc_node* n)
{
    return std::string(n->text, n->len);
}

bool is(const doc_node* n, const char* word)
{
    return text(n) == word;
}

const doc_node* field(const doc_node* record, int index)
{
    return wl_field(record, index);
}

// The three decomposition forms of WORKLOAD.md, through the kernels' own code.
void take_decomposition(const doc_node* node, Dataset& ds)
{
    auto grid = u64s(field(node, WL_DECOMPOSITION_GRID));
    const doc_node* block = field(node, WL_DECOMPOSITION_BLOCK);
    const doc_node* dims = field(node, WL_DECOMPOSITION_DIMS);
    const doc_node* extents = field(node, WL_DECOMPOSITION_EXTENTS);
    int nd = static_cast<int>(grid.size());
    decomposition d{};
    int rc;
    if (block || dims) {
        auto sizes = u64s(block ? block : dims);
        rc = block ? decomp_init_uniform(&d, nd, grid.data(), sizes.data())
                   : decomp_init_balanced(&d, nd, grid.data(), sizes.data());
    } else {
        std::vector<std::vector<uint64_t>> lists;
        std::vector<const uint64_t*> ptrs;
        for (size_t a = 0; a < extents->n; a++)
            lists.push_back(u64s(extents->items[a]));
        for (const auto& list : lists)
            ptrs.push_back(list.data());
        rc = decomp_init_listed(&d, nd, grid.data(), ptrs.data());
    }
    if (rc != 0)
        throw std::bad_alloc();
    ds.grid = grid;
    ds.extents.resize(nd);
    ds.starts.resize(nd);
    for (int a = 0; a < nd; a++) {
        ds.extents[a].assign(d.extent[a], d.extent[a] + grid[a]);
        ds.starts[a].assign(d.start[a], d.start[a] + grid[a]);
    }
    decomp_free(&d);
}

// A dataset without a decomposition is written through the session's calls only; its
// extents come from `dims`, split along axis 0 over the writers (how its fill is shared).
void take_split(const std::vector<uint64_t>& dims, uint64_t writers, Dataset& ds)
{
    std::vector<uint64_t> grid(dims.size(), 1);
    grid[0] = writers;
    decomposition d{};
    if (decomp_init_balanced(&d, static_cast<int>(dims.size()), grid.data(), dims.data()) != 0)
        throw std::bad_alloc();
    ds.grid = grid;
    ds.extents.resize(dims.size());
    ds.starts.resize(dims.size());
    for (size_t a = 0; a < dims.size(); a++) {
        ds.extents[a].assign(d.extent[a], d.extent[a] + grid[a]);
        ds.starts[a].assign(d.start[a], d.start[a] + grid[a]);
    }
    decomp_free(&d);
}

Dataset take_dataset(const doc_node* node, uint64_t writers, const std::string& where)
{
    Dataset ds;
    ds.name = text(field(node, WL_DATASET_NAME));
    ds.element_bytes = static_cast<uint64_t>(field(node, WL_DATASET_ELEMENT_BYTES)->i);
    if (const doc_node* decomposition = field(node, WL_DATASET_DECOMPOSITION))
        take_decomposition(decomposition, ds);
    else
        take_split(u64s(field(node, WL_DATASET_DIMS)), writers, ds);
    if (const doc_node* chunk = field(node, WL_DATASET_CHUNK_DIMS))
        ds.chunk_dims = u64s(chunk);
    ds.collective = is(field(node, WL_DATASET_TRANSFER), "collective");
    ds.fill_time = parse_fill_time(text(field(node, WL_DATASET_FILL_TIME)), where + ".fill_time");
    ds.fill_value = parse_fill_value(text(field(node, WL_DATASET_FILL_VALUE)), where + ".fill_value");
    return ds;
}

FileMode parse_mode(const std::string& mode, const std::string& where)
{
    return parse_word<FileMode>(
        mode, {{"shared", FileMode::shared}, {"per-rank", FileMode::per_rank},
               {"groups", FileMode::groups}},
        where + ".mode");
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
        if (side[a] == 0)
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

// A run of the normal form: its ranks [first, n, step] and every per-axis list present.
void run_boxes(const doc_node* run, std::vector<Box>& out)
{
    const doc_node* ranks = field(run, WL_RUN_RANKS);
    const doc_node* start_step = field(run, WL_RUN_START_STEP);
    uint64_t first = U(ranks, 0), n = U(ranks, 1), step = U(ranks, 2);
    auto start = u64s(field(run, WL_RUN_START));
    auto count = u64s(field(run, WL_RUN_COUNT));
    auto stride = u64s(field(run, WL_RUN_STRIDE));
    auto block = u64s(field(run, WL_RUN_BLOCK));
    for (uint64_t k = 0; k < n; k++) {
        std::vector<uint64_t> s(start);
        for (size_t a = 0; a < s.size(); a++)
            s[a] = static_cast<uint64_t>(static_cast<int64_t>(s[a]) +
                                         static_cast<int64_t>(k) * start_step->items[a]->i);
        hyperslab_boxes(static_cast<uint32_t>(first + k * step), s, stride, count, block, out);
    }
}

// One dataset's selection in one call (WORKLOAD.md: regular grid + origin, or runs).
std::vector<Box> take_selection(const doc_node* node, uint64_t writers)
{
    std::vector<Box> boxes;
    if (!field(node, WL_SELECTION_GRID)) {
        const doc_node* runs = field(node, WL_SELECTION_RUNS);
        for (size_t r = 0; r < runs->n; r++)
            run_boxes(runs->items[r], boxes);
        return boxes;
    }
    Dataset grid;
    take_decomposition(node, grid);
    auto origin = u64s(field(node, WL_SELECTION_ORIGIN));
    for (uint64_t w = 0; w < writers; w++) {
        Box box{static_cast<uint32_t>(w), {}, {}};
        grid.block(w, box.start, box.count);
        for (size_t a = 0; a < box.start.size(); a++)
            box.start[a] += origin[a];
        boxes.push_back(std::move(box));
    }
    return boxes;
}

IoCall take_call(const doc_node* node, const std::unordered_map<std::string, size_t>& datasets,
                 uint64_t writers)
{
    IoCall call;
    call.compute_before_s = field(node, WL_CALL_COMPUTE_BEFORE_S)->f;
    if (field(node, WL_CALL_FLUSH)->i)
        return call.flush = true, call;
    call.collective = is(field(node, WL_CALL_TRANSFER), "collective");
    const doc_node* names = field(node, WL_CALL_WRITE);
    const doc_node* selections = field(node, WL_CALL_SELECTIONS);
    for (size_t k = 0; k < names->n; k++) {
        call.datasets.push_back(datasets.at(text(names->items[k])));
        call.boxes.push_back(take_selection(selections->items[k], writers));
    }
    return call;
}

// A call and, with `repeat` (WORKLOAD.md), its repetitions: the k-th with every box moved by
// k * origin_step (the selections are regular), after compute_between_s of computation.
void append_calls(const doc_node* node, const std::unordered_map<std::string, size_t>& datasets,
                  uint64_t writers, std::vector<IoCall>& calls)
{
    calls.push_back(take_call(node, datasets, writers));
    const doc_node* repeat = field(node, WL_CALL_REPEAT);
    if (!repeat)
        return;
    const IoCall first = calls.back();
    const doc_node* step = field(repeat, WL_REPEAT_ORIGIN_STEP);
    int64_t times = field(repeat, WL_REPEAT_TIMES)->i;
    for (int64_t k = 1; k < times; k++) {
        IoCall next = first;
        next.compute_before_s = field(repeat, WL_REPEAT_COMPUTE_BETWEEN_S)->f;
        for (auto& boxes : next.boxes)
            for (Box& box : boxes)
                for (size_t a = 0; a < box.start.size(); a++)
                    box.start[a] = static_cast<uint64_t>(static_cast<int64_t>(box.start[a]) +
                                                         k * step->items[a]->i);
        calls.push_back(std::move(next));
    }
}

FileSession take_session(const doc_node* node, int ranks, const std::string& where)
{
    FileSession s;
    s.name = text(field(node, WL_FILE_NAME));
    s.mode = parse_mode(text(field(node, WL_FILE_MODE)), where);
    if (const doc_node* groups = field(node, WL_FILE_GROUPS))
        s.groups = static_cast<int>(groups->i);
    s.create = field(node, WL_FILE_CREATE)->i != 0;
    const std::string api = text(field(node, WL_FILE_API));
    if (api == "netcdf4")
        throw NotModelled(where + ".api: netcdf4 is not modelled by iosim");
    s.hdf5 = api == "hdf5";  // mpiio and posix: no HDF5 layout or metadata
    s.compute_before_s = field(node, WL_FILE_COMPUTE_BEFORE_S)->f;
    s.one_call = is(field(node, WL_FILE_WRITE_CALLS), "one-call");
    s.flushes = static_cast<int>(field(node, WL_FILE_FLUSHES)->i);
    uint64_t writers = s.mode == FileMode::per_rank ? 1 : static_cast<uint64_t>(s.writers_per_instance(ranks));
    const doc_node* datasets = field(node, WL_FILE_DATASETS);
    std::unordered_map<std::string, size_t> index;
    for (size_t d = 0; d < datasets->n; d++) {
        s.datasets.push_back(take_dataset(datasets->items[d], writers,
                                          where + ".datasets[" + std::to_string(d) + "]"));
        index.emplace(s.datasets.back().name, d);
    }
    if (const doc_node* calls = field(node, WL_FILE_CALLS))
        for (size_t c = 0; c < calls->n; c++)
            append_calls(calls->items[c], index, writers, s.calls);
    return s;
}

}  // namespace

const doc_node* check_workload(const doc_node* document, doc& out)
{
    doc_node* normal = nullptr;
    char err[1024];
    if (workload_check(document, &out, &normal, err, sizeof err))
        throw std::invalid_argument(err);
    return normal;
}

Workload read_workload(const doc_node* normal)
{
    Workload w;
    w.name = text(field(normal, WL_WORKLOAD_NAME));
    w.ranks = static_cast<int>(field(normal, WL_WORKLOAD_RANKS)->i);
    if (const doc_node* per_node = field(normal, WL_WORKLOAD_RANKS_PER_NODE))
        w.ranks_per_node = static_cast<int>(per_node->i);
    w.openmpi = is(field(normal, WL_WORKLOAD_MPI), "openmpi");
    const doc_node* files = field(normal, WL_WORKLOAD_FILES);
    for (size_t i = 0; i < files->n; i++)
        w.files.push_back(take_session(files->items[i], w.ranks, "files[" + std::to_string(i) + "]"));
    return w;
}

Workload parse_workload(const json& data)
{
    Document source, normal;
    return read_workload(check_workload(doc_from_json(data, source.d), normal.d));
}

}  // namespace iosim
