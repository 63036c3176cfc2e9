#include "workload.hpp"
#include "netcdf4.hpp"
#include "words.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <stdexcept>

extern "C" {
#include "decomposition.h"
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

std::vector<uint64_t> u64_list(const json& j, const std::string& what)
{
    if (!j.is_array() || j.empty())
        throw std::invalid_argument(what + ": expected a non-empty list of integers");
    return j.get<std::vector<uint64_t>>();
}

// The three decomposition forms of WORKLOAD.md, through the kernels' own code.
void parse_decomposition(const json& j, Dataset& ds, const std::string& where)
{
    auto grid = u64_list(j.at("grid"), where + ".grid");
    if (grid.size() > DECOMP_MAX_DIMS)
        throw std::invalid_argument(where + ".grid: at most 4 axes");
    int nd = static_cast<int>(grid.size());
    decomposition d{};
    int rc = -1;
    if (j.contains("block")) {
        auto block = u64_list(j["block"], where + ".block");
        if (block.size() != grid.size())
            throw std::invalid_argument(where + ".block: one extent per grid axis");
        rc = decomp_init_uniform(&d, nd, grid.data(), block.data());
    } else if (j.contains("dims")) {
        auto dims = u64_list(j["dims"], where + ".dims");
        if (dims.size() != grid.size())
            throw std::invalid_argument(where + ".dims: one extent per grid axis");
        rc = decomp_init_balanced(&d, nd, grid.data(), dims.data());
    } else if (j.contains("extents")) {
        std::vector<std::vector<uint64_t>> lists;
        std::vector<const uint64_t*> ptrs;
        for (const auto& axis : j["extents"])
            lists.push_back(u64_list(axis, where + ".extents"));
        if (lists.size() != grid.size())
            throw std::invalid_argument(where + ".extents: one list per grid axis");
        for (size_t a = 0; a < lists.size(); a++) {
            if (lists[a].size() != grid[a])
                throw std::invalid_argument(where + ".extents: grid[a] entries per axis");
            ptrs.push_back(lists[a].data());
        }
        rc = decomp_init_listed(&d, nd, grid.data(), ptrs.data());
    } else {
        throw std::invalid_argument(where + ": needs block, dims or extents");
    }
    if (rc != 0)
        throw std::invalid_argument(where + ": invalid decomposition");
    ds.grid = grid;
    ds.extents.resize(nd);
    ds.starts.resize(nd);
    for (int a = 0; a < nd; a++) {
        ds.extents[a].assign(d.extent[a], d.extent[a] + grid[a]);
        ds.starts[a].assign(d.start[a], d.start[a] + grid[a]);
    }
    decomp_free(&d);
}

FileMode parse_mode(const std::string& mode, const std::string& where)
{
    return parse_word<FileMode>(
        mode, {{"shared", FileMode::shared}, {"per-rank", FileMode::per_rank},
               {"groups", FileMode::groups}},
        where + ".mode");
}

// A dataset without a decomposition is written through the session's calls only; its
// extents come from `dims`, split along axis 0 over the writers (how its fill is shared).
Dataset parse_dataset(const json& j, uint64_t writers, const std::string& where)
{
    Dataset ds;
    ds.name = j.at("name").get<std::string>();
    ds.element_bytes = j.at("element_bytes").get<uint64_t>();
    if (j.contains("decomposition") && !j["decomposition"].is_null()) {
        parse_decomposition(j["decomposition"], ds, where + ".decomposition");
        if (j.contains("dims") && u64_list(j["dims"], where + ".dims") != ds.dims())
            throw std::invalid_argument(where + ".dims: differs from the decomposition's extents");
    } else {
        auto dims = u64_list(j.at("dims"), where + ".dims");
        json split = {{"grid", std::vector<uint64_t>(dims.size(), 1)}, {"dims", dims}};
        split["grid"][0] = writers;
        parse_decomposition(split, ds, where + ".dims");
    }
    if (j.contains("chunk_dims") && !j["chunk_dims"].is_null())
        ds.chunk_dims = u64_list(j["chunk_dims"], where + ".chunk_dims");
    ds.collective = j.value("transfer", std::string("collective")) == "collective";
    if (j.contains("fill_time"))
        ds.fill_time = parse_fill_time(j["fill_time"].get<std::string>(), where + ".fill_time");
    if (j.contains("fill_value"))
        ds.fill_value = parse_fill_value(j["fill_value"].get<std::string>(), where + ".fill_value");
    return ds;
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

std::vector<uint64_t> axis_list(const json& run, const char* key, size_t nd, uint64_t fill,
                                const std::string& where)
{
    if (!run.contains(key))
        return std::vector<uint64_t>(nd, fill);
    auto v = run[key].get<std::vector<uint64_t>>();
    if (v.size() != nd)
        throw std::invalid_argument(where + "." + key + ": one value per axis of the dataset");
    return v;
}

void run_boxes(const json& run, size_t nd, const std::string& where, std::vector<Box>& out)
{
    auto ranks = run.at("ranks").get<std::vector<uint64_t>>();
    if (ranks.size() < 2 || ranks.size() > 3)
        throw std::invalid_argument(where + ".ranks: [first, n] or [first, n, step]");
    uint64_t step = ranks.size() == 3 ? ranks[2] : 1;
    auto start = axis_list(run, "start", nd, 0, where);
    auto start_step = axis_list(run, "start_step", nd, 0, where);
    auto count = axis_list(run, "count", nd, 1, where);
    auto stride = axis_list(run, "stride", nd, 1, where);
    auto block = axis_list(run, "block", nd, 1, where);
    for (uint64_t k = 0; k < ranks[1]; k++) {
        std::vector<uint64_t> s(start);
        for (size_t a = 0; a < nd; a++)
            s[a] += k * start_step[a];
        hyperslab_boxes(static_cast<uint32_t>(ranks[0] + k * step), s, stride, count, block, out);
    }
}

// One dataset's selection in one call (WORKLOAD.md: regular grid + origin, or runs).
std::vector<Box> parse_selection(const json& j, const Dataset& ds, uint64_t writers, const std::string& where)
{
    auto dims = ds.dims();
    std::vector<Box> boxes;
    if (j.contains("grid")) {
        Dataset grid;
        parse_decomposition(j, grid, where);
        if (grid.writers() != writers)
            throw std::invalid_argument(where + ".grid: " + std::to_string(grid.writers()) +
                                        " writers, the file has " + std::to_string(writers));
        auto origin = axis_list(j, "origin", dims.size(), 0, where);
        for (uint64_t w = 0; w < writers; w++) {
            Box box{static_cast<uint32_t>(w), {}, {}};
            grid.block(w, box.start, box.count);
            for (size_t a = 0; a < box.start.size() && a < origin.size(); a++)
                box.start[a] += origin[a];
            boxes.push_back(std::move(box));
        }
    } else {
        const auto& runs = j.at("runs");
        for (size_t r = 0; r < runs.size(); r++)
            run_boxes(runs[r], dims.size(), where + ".runs[" + std::to_string(r) + "]", boxes);
    }
    for (const Box& b : boxes) {
        if (b.start.size() != dims.size() || b.writer >= writers)
            throw std::invalid_argument(where + ": a box of writer " + std::to_string(b.writer) +
                                        " does not fit the dataset or the file's writers");
        for (size_t a = 0; a < dims.size(); a++)
            if (b.start[a] + b.count[a] > dims[a])
                throw std::invalid_argument(where + ": writer " + std::to_string(b.writer) +
                                            "'s box leaves the dataset along axis " + std::to_string(a));
    }
    return boxes;
}

IoCall parse_call(const json& j, const FileSession& s, uint64_t writers, const std::string& where)
{
    IoCall call;
    call.compute_before_s = j.value("compute_before_s", 0.0);
    if (j.value("flush", false))
        return call.flush = true, call;
    call.collective = s.netcdf4 ? netcdf4_call_collective(j)
                                : j.value("transfer", std::string("collective")) == "collective";
    const auto& names = j.at("write");
    const auto& selections = j.at("selections");
    if (names.size() != selections.size())
        throw std::invalid_argument(where + ".selections: one per dataset written");
    for (size_t k = 0; k < names.size(); k++) {
        auto name = names[k].get<std::string>();
        size_t d = 0;
        while (d < s.datasets.size() && s.datasets[d].name != name)
            d++;
        if (d == s.datasets.size())
            throw std::invalid_argument(where + ".write: no dataset " + name + " in the session");
        call.datasets.push_back(d);
        call.boxes.push_back(parse_selection(selections[k], s.datasets[d], writers,
                                             where + ".selections[" + std::to_string(k) + "]"));
    }
    return call;
}

// A call and, with `repeat` (WORKLOAD.md), its repetitions: the k-th with every regular
// selection's origin moved by k * origin_step, after compute_between_s of computation.
void append_calls(const json& j, const FileSession& s, uint64_t writers, const std::string& where,
                  std::vector<IoCall>& calls)
{
    calls.push_back(parse_call(j, s, writers, where));
    if (!j.contains("repeat"))
        return;
    const json& repeat = j["repeat"];
    const auto times = repeat.at("times").get<uint64_t>();
    const auto step = repeat.at("origin_step").get<std::vector<long long>>();
    std::vector<std::vector<long long>> origins;  // of each selection in the first call
    for (const json& selection : j.at("selections")) {
        if (!selection.contains("grid") || step.size() != selection["grid"].size())
            throw std::invalid_argument(where + ".repeat: only for regular selections, "
                                        "one origin_step per axis");
        origins.push_back(selection.value("origin", std::vector<long long>(step.size(), 0)));
    }
    json shifted = j;
    shifted["compute_before_s"] = repeat.value("compute_between_s", 0.0);
    for (uint64_t k = 1; k < times; k++) {
        for (size_t i = 0; i < origins.size(); i++) {
            auto origin = origins[i];
            for (size_t a = 0; a < step.size(); a++)
                origin[a] += static_cast<long long>(k) * step[a];
            if (*std::min_element(origin.begin(), origin.end()) < 0)
                throw std::invalid_argument(where + ".repeat: repetition " + std::to_string(k) +
                                            " starts before the dataset");
            shifted["selections"][i]["origin"] = origin;
        }
        calls.push_back(parse_call(shifted, s, writers, where + ".repeat[" + std::to_string(k) + "]"));
    }
}

}  // namespace

Workload parse_workload(const json& data)
{
    Workload w;
    w.name = data.value("name", std::string("workload"));
    w.ranks = data.at("ranks").get<int>();
    w.ranks_per_node = data.value("ranks_per_node", 0);
    std::string mpi = data.value("mpi", std::string("mpich"));
    if (mpi != "mpich" && mpi != "openmpi")
        throw std::invalid_argument("workload.mpi: expected mpich or openmpi, got '" + mpi + "'");
    w.openmpi = mpi == "openmpi";
    if (w.ranks < 1)
        throw std::invalid_argument("workload.ranks: must be >= 1");
    const auto& files = data.at("files");
    for (size_t i = 0; i < files.size(); i++) {
        const auto& f = files[i];
        std::string where = "workload.files[" + std::to_string(i) + "]";
        FileSession s;
        s.name = f.at("name").get<std::string>();
        s.mode = parse_mode(f.value("mode", std::string("shared")), where);
        s.groups = f.value("groups", 1);
        if (s.mode == FileMode::groups && (s.groups < 1 || w.ranks % s.groups != 0))
            throw std::invalid_argument(where + ".groups: must divide the rank count");
        s.create = f.value("create", true);
        std::string api = f.value("api", std::string("hdf5"));
        if (api != "hdf5" && api != "netcdf4" && api != "mpiio" && api != "posix")
            throw std::invalid_argument(where + ".api: expected hdf5, netcdf4, mpiio or posix, got '" + api + "'");
        s.netcdf4 = api == "netcdf4";
        s.hdf5 = api == "hdf5" || s.netcdf4;
        s.compute_before_s = f.value("compute_before_s", 0.0);
        s.one_call = f.value("write_calls", std::string("per-dataset")) == "one-call";
        s.flushes = f.value("flushes", 0);
        uint64_t writers = s.mode == FileMode::per_rank ? 1 : static_cast<uint64_t>(s.writers_per_instance(w.ranks));
        const auto& dsets = f.at("datasets");
        for (size_t d = 0; d < dsets.size(); d++) {
            auto ds = parse_dataset(dsets[d], writers, where + ".datasets[" + std::to_string(d) + "]");
            if (s.netcdf4)
                apply_netcdf4_defaults(dsets[d], ds);
            if (ds.writers() != writers)
                throw std::invalid_argument(where + ".datasets[" + std::to_string(d) +
                                            "].decomposition: the grid has " +
                                            std::to_string(ds.writers()) + " writers, the file has " +
                                            std::to_string(writers));
            s.datasets.push_back(std::move(ds));
        }
        if (f.contains("calls"))
            for (size_t c = 0; c < f["calls"].size(); c++)
                append_calls(f["calls"][c], s, writers, where + ".calls[" + std::to_string(c) + "]", s.calls);
        w.files.push_back(std::move(s));
    }
    return w;
}

}  // namespace iosim
