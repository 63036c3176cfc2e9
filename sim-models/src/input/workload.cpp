#include "input/workload.hpp"

#include <nlohmann/json.hpp>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include "input/doc_json.hpp"
#include "input/words.hpp"
#include "iolib/io_library.hpp"

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

// A write call's transfer, or a dataset's: as the workload says, else as its library's default.
bool collective(const doc_node* transfer, const IoLibrary& library)
{
    return transfer ? is(transfer, "collective") : library.collective_by_default();
}

Dataset take_dataset(const doc_node* node, uint64_t writers, const IoLibrary& library, const std::string& where)
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
    ds.collective = collective(field(node, WL_DATASET_TRANSFER), library);
    ds.fill_time = parse_fill_time(text(field(node, WL_DATASET_FILL_TIME)), where + ".fill_time");
    if (const doc_node* fill_value = field(node, WL_DATASET_FILL_VALUE))
        ds.fill_value = parse_fill_value(text(fill_value), where + ".fill_value");
    else
        ds.fill_value = library.default_fill_value();
    return ds;
}

FileMode parse_mode(const std::string& mode, const std::string& where)
{
    return parse_word<FileMode>(
        mode, {{"shared", FileMode::shared}, {"per-rank", FileMode::per_rank},
               {"groups", FileMode::groups}},
        where + ".mode");
}

// A run of the normal form: its ranks [first, n, step] and every per-axis list present. A
// negative start_step is kept as its two's complement: the pieces' offsets are computed modulo
// 2^64 and come out right (the format's rules keep every writer's hyperslab in the dataset).
HyperslabRun take_run(const doc_node* run)
{
    const doc_node* ranks = field(run, WL_RUN_RANKS);
    HyperslabRun r;
    r.first_writer = U(ranks, 0);
    r.writers = U(ranks, 1);
    r.writer_step = U(ranks, 2);
    r.start = u64s(field(run, WL_RUN_START));
    r.start_step = u64s(field(run, WL_RUN_START_STEP));
    r.count = u64s(field(run, WL_RUN_COUNT));
    r.stride = u64s(field(run, WL_RUN_STRIDE));
    r.block = u64s(field(run, WL_RUN_BLOCK));
    return r;
}

// One dataset's selection in one call (WORKLOAD.md: regular grid + origin, or runs), kept as
// written: its pieces are made by whoever needs them.
Selection take_selection(const doc_node* node)
{
    Selection sel;
    if (!field(node, WL_SELECTION_GRID)) {
        const doc_node* runs = field(node, WL_SELECTION_RUNS);
        for (size_t r = 0; r < runs->n; r++)
            sel.runs.push_back(take_run(runs->items[r]));
        return sel;
    }
    sel.grid = true;
    take_decomposition(node, sel.decomposition);
    sel.origin = u64s(field(node, WL_SELECTION_ORIGIN));
    return sel;
}

// A call and, with `repeat` (WORKLOAD.md), its repetitions, kept as one call with `times`:
// the k-th with every regular selection's origin moved by k * origin_step, after
// compute_between_s of computation.
IoCall take_call(const doc_node* node, const FileSession& s,
                 const std::unordered_map<std::string, size_t>& datasets)
{
    IoCall call;
    call.compute_before_s = field(node, WL_CALL_COMPUTE_BEFORE_S)->f;
    if (field(node, WL_CALL_FLUSH)->i)
        return call.flush = true, call;
    call.collective = collective(field(node, WL_CALL_TRANSFER), io_library(s.api));
    const doc_node* names = field(node, WL_CALL_WRITE);
    const doc_node* selections = field(node, WL_CALL_SELECTIONS);
    for (size_t k = 0; k < names->n; k++) {
        call.datasets.push_back(datasets.at(text(names->items[k])));
        call.selections.push_back(take_selection(selections->items[k]));
    }
    if (const doc_node* repeat = field(node, WL_CALL_REPEAT)) {
        const doc_node* step = field(repeat, WL_REPEAT_ORIGIN_STEP);
        call.times = static_cast<uint64_t>(field(repeat, WL_REPEAT_TIMES)->i);
        for (size_t a = 0; a < step->n; a++)
            call.origin_step.push_back(step->items[a]->i);
        call.compute_between_s = field(repeat, WL_REPEAT_COMPUTE_BETWEEN_S)->f;
    }
    return call;
}

std::optional<bool> take_bool(const doc_node* node)
{
    return node ? std::optional<bool>(node->i != 0) : std::nullopt;
}

Hdf5Access take_hdf5_access(const doc_node* node)
{
    if (!node)
        return {};
    return {take_bool(field(node, WL_HDF5_ACCESS_COLL_METADATA_WRITE)),
            take_bool(field(node, WL_HDF5_ACCESS_ALL_COLL_METADATA_OPS))};
}

std::optional<Hdf5Create> take_hdf5_create(const doc_node* node)
{
    if (!node)
        return std::nullopt;
    return Hdf5Create{text(field(node, WL_HDF5_CREATE_LIBVER_LOW)), text(field(node, WL_HDF5_CREATE_LINK_CREATION_ORDER)),
                      text(field(node, WL_HDF5_CREATE_ATTR_CREATION_ORDER)),
                      field(node, WL_HDF5_CREATE_TRACK_TIMES)->i != 0};
}

// One of `name`, `set_scale`, `attach_scale`, after datasets the session has (WORKLOAD.md).
Attribute take_attribute(const doc_node* node, size_t datasets, const std::string& where)
{
    Attribute a;
    a.object = text(field(node, WL_ATTRIBUTE_OBJECT));
    a.after_datasets = static_cast<size_t>(field(node, WL_ATTRIBUTE_AFTER_DATASETS)->i);
    const doc_node* name = field(node, WL_ATTRIBUTE_NAME);
    const doc_node* set_scale = field(node, WL_ATTRIBUTE_SET_SCALE);
    const doc_node* attach_scale = field(node, WL_ATTRIBUTE_ATTACH_SCALE);
    const doc_node* element_class = field(node, WL_ATTRIBUTE_ELEMENT_CLASS);
    const doc_node* element_bytes = field(node, WL_ATTRIBUTE_ELEMENT_BYTES);
    const doc_node* axis = field(node, WL_ATTRIBUTE_AXIS);
    if ((name != nullptr) + (set_scale != nullptr) + (attach_scale != nullptr) != 1)
        throw InputRefused(where + ": exactly one of name, set_scale and attach_scale expected");
    if (name && !(element_class && element_bytes))
        throw InputRefused(where + ": an attribute needs element_class and element_bytes");
    if (attach_scale && !axis)
        throw InputRefused(where + ": attach_scale needs the axis it is attached to");
    if (a.after_datasets > datasets)
        throw InputRefused(where + ".after_datasets: " + std::to_string(a.after_datasets)
                           + " is more than the session's " + std::to_string(datasets) + " datasets");
    if (name) {
        a.name = text(name);
        a.element_class = text(element_class);
        a.element_bytes = static_cast<uint64_t>(element_bytes->i);
        if (const doc_node* dims = field(node, WL_ATTRIBUTE_DIMS))
            a.dims = u64s(dims);
    }
    if (set_scale)
        a.set_scale = text(set_scale);
    if (attach_scale) {
        a.attach_scale = text(attach_scale);
        a.axis = static_cast<unsigned>(axis->i);
    }
    return a;
}

FileSession take_session(const doc_node* node, int ranks, const std::string& where)
{
    FileSession s;
    s.name = text(field(node, WL_FILE_NAME));
    s.mode = parse_mode(text(field(node, WL_FILE_MODE)), where);
    if (const doc_node* groups = field(node, WL_FILE_GROUPS))
        s.groups = static_cast<int>(groups->i);
    s.create = field(node, WL_FILE_CREATE)->i != 0;
    s.api = text(field(node, WL_FILE_API));
    s.compute_before_s = field(node, WL_FILE_COMPUTE_BEFORE_S)->f;
    s.one_call = is(field(node, WL_FILE_WRITE_CALLS), "one-call");
    s.flushes = static_cast<int>(field(node, WL_FILE_FLUSHES)->i);
    s.hdf5_access = take_hdf5_access(field(node, WL_FILE_HDF5_ACCESS));
    s.hdf5_create = take_hdf5_create(field(node, WL_FILE_HDF5_CREATE));
    uint64_t writers = s.mode == FileMode::per_rank ? 1 : static_cast<uint64_t>(s.writers_per_instance(ranks));
    const doc_node* datasets = field(node, WL_FILE_DATASETS);
    std::unordered_map<std::string, size_t> index;
    for (size_t d = 0; d < datasets->n; d++) {
        s.datasets.push_back(take_dataset(datasets->items[d], writers, io_library(s.api),
                                          where + ".datasets[" + std::to_string(d) + "]"));
        index.emplace(s.datasets.back().name, d);
    }
    if (const doc_node* attributes = field(node, WL_FILE_ATTRIBUTES))
        for (size_t a = 0; a < attributes->n; a++)
            s.attributes.push_back(take_attribute(attributes->items[a], s.datasets.size(),
                                                  where + ".attributes[" + std::to_string(a) + "]"));
    if (const doc_node* calls = field(node, WL_FILE_CALLS))
        for (size_t c = 0; c < calls->n; c++)
            s.calls.push_back(take_call(calls->items[c], s, index));
    return s;
}

}  // namespace

const doc_node* check_workload(const doc_node* document, doc& out, const char* file)
{
    doc_node* normal = nullptr;
    char err[2048];
    if (workload_check(document, file, &out, &normal, err, sizeof err))
        throw InputRefused(err);
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
    w.writes_timed = is(field(normal, WL_WORKLOAD_TIMED), "writes");
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
