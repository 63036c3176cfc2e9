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

std::vector<uint64_t> IoCall::origin_at(size_t i, uint64_t k) const
{
    std::vector<uint64_t> origin = selections[i].origin;
    for (size_t a = 0; a < origin.size() && a < origin_step.size(); a++)
        origin[a] = static_cast<uint64_t>(static_cast<long long>(origin[a]) + static_cast<long long>(k) * origin_step[a]);
    return origin;
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

using Wide = unsigned __int128;  // sums of products of 64-bit sizes, without wrapping

// The end of a hyperslab's last block along axis a (start included), 0 when it selects nothing.
Wide hyperslab_end(const HyperslabRun& run, size_t a, Wide start)
{
    if (run.count[a] == 0 || run.block[a] == 0)
        return 0;
    return start + Wide(run.count[a] - 1) * run.stride[a] + run.block[a];
}

HyperslabRun parse_run(const json& run, size_t nd, uint64_t writers, const std::string& where)
{
    auto ranks = run.at("ranks").get<std::vector<uint64_t>>();
    if (ranks.size() < 2 || ranks.size() > 3)
        throw std::invalid_argument(where + ".ranks: [first, n] or [first, n, step]");
    HyperslabRun r;
    r.first_writer = ranks[0];
    r.writers = ranks[1];
    r.writer_step = ranks.size() == 3 ? ranks[2] : 1;
    r.start = axis_list(run, "start", nd, 0, where);
    r.start_step = axis_list(run, "start_step", nd, 0, where);
    r.count = axis_list(run, "count", nd, 1, where);
    r.stride = axis_list(run, "stride", nd, 1, where);
    r.block = axis_list(run, "block", nd, 1, where);
    if (r.writers > 0 && Wide(r.first_writer) + Wide(r.writers - 1) * r.writer_step >= writers)
        throw std::invalid_argument(where + ".ranks: names writers beyond the file's " + std::to_string(writers));
    return r;
}

// The first writer (in the order the selection names them) whose block leaves the dataset,
// and along which axis; writers = 0 when every block fits.
struct Overflow {
    uint64_t writer = 0;
    size_t axis = 0;
    bool found = false;
};

Overflow grid_overflow(const Dataset& grid, const std::vector<Wide>& origin, const std::vector<uint64_t>& dims)
{
    Overflow first;
    size_t nd = dims.size();
    std::vector<uint64_t> writer_stride(nd, 1);
    for (size_t a = nd - 1; a-- > 0;)
        writer_stride[a] = writer_stride[a + 1] * grid.grid[a + 1];
    for (size_t a = 0; a < nd; a++)
        for (uint64_t slot = 0; slot < grid.grid[a]; slot++)
            if (origin[a] + grid.starts[a][slot] + grid.extents[a][slot] > dims[a]) {
                uint64_t w = slot * writer_stride[a];
                if (!first.found || w < first.writer)
                    first = {w, a, true};
                break;
            }
    if (first.found) {  // that writer's first axis out of bounds
        std::vector<uint64_t> start, count;
        grid.block(first.writer, start, count);
        for (size_t a = 0; a < nd; a++)
            if (origin[a] + start[a] + count[a] > dims[a])
                return {first.writer, a, true};
    }
    return first;
}

Overflow run_overflow(const HyperslabRun& r, const std::vector<uint64_t>& dims)
{
    // start_step >= 0: the writers that leave along an axis are the last ones of the run
    Overflow first;
    uint64_t first_k = r.writers;
    for (size_t a = 0; a < dims.size(); a++) {
        if (hyperslab_end(r, a, r.start[a]) == 0)
            return first;  // selects nothing: no box to check
        Wide end0 = hyperslab_end(r, a, r.start[a]);
        uint64_t k = 0;
        if (end0 > dims[a])
            k = 0;
        else if (r.start_step[a] == 0)
            continue;
        else
            k = static_cast<uint64_t>((Wide(dims[a]) - end0) / r.start_step[a] + 1);
        if (k < first_k)
            first_k = k;
    }
    if (first_k >= r.writers)
        return first;
    uint64_t writer = r.first_writer + first_k * r.writer_step;
    for (size_t a = 0; a < dims.size(); a++)
        if (hyperslab_end(r, a, Wide(r.start[a]) + Wide(first_k) * r.start_step[a]) > dims[a])
            return {writer, a, true};
    return first;
}

void check_fits(const Overflow& o, const std::string& where)
{
    if (o.found)
        throw std::invalid_argument(where + ": writer " + std::to_string(o.writer) +
                                    "'s box leaves the dataset along axis " + std::to_string(o.axis));
}

// One dataset's selection in one call (WORKLOAD.md: regular grid + origin, or runs). Checked
// here, in closed form: whatever its size, no piece of it is made while reading it.
Selection parse_selection(const json& j, const Dataset& ds, uint64_t writers, const std::string& where)
{
    auto dims = ds.dims();
    Selection sel;
    if (j.contains("grid")) {
        sel.grid = true;
        parse_decomposition(j, sel.decomposition, where);
        if (sel.decomposition.writers() != writers)
            throw std::invalid_argument(where + ".grid: " + std::to_string(sel.decomposition.writers()) +
                                        " writers, the file has " + std::to_string(writers));
        if (sel.decomposition.grid.size() != dims.size())
            throw std::invalid_argument(where + ": a box of writer 0 does not fit the dataset or the file's writers");
        sel.origin = axis_list(j, "origin", dims.size(), 0, where);
        check_fits(grid_overflow(sel.decomposition, std::vector<Wide>(sel.origin.begin(), sel.origin.end()), dims),
                   where);
    } else {
        const auto& runs = j.at("runs");
        for (size_t r = 0; r < runs.size(); r++) {
            sel.runs.push_back(parse_run(runs[r], dims.size(), writers, where + ".runs[" + std::to_string(r) + "]"));
            check_fits(run_overflow(sel.runs.back(), dims), where);
        }
    }
    return sel;
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
        call.selections.push_back(parse_selection(selections[k], s.datasets[d], writers,
                                                  where + ".selections[" + std::to_string(k) + "]"));
    }
    return call;
}

// The first repetition k in [1, times) whose grid selection would start before the dataset
// (before = true) or leave it; times when none does. Origins move linearly with k.
uint64_t first_bad_repetition(const IoCall& call, const std::vector<Dataset>& datasets, bool& before)
{
    uint64_t worst = call.times;
    for (size_t i = 0; i < call.selections.size(); i++) {
        const Selection& sel = call.selections[i];
        auto dims = datasets[call.datasets[i]].dims();
        auto extent = sel.decomposition.dims();
        for (size_t a = 0; a < dims.size(); a++) {
            long long step = call.origin_step[a];
            if (step < 0) {  // origin + k * step < 0 from k = origin / |step| + 1
                uint64_t k = sel.origin[a] / static_cast<uint64_t>(-step) + 1;
                if (k < worst || (k == worst && !before))
                    worst = k, before = true;
            } else if (step > 0) {  // origin + k * step + extent > dims
                Wide end = Wide(sel.origin[a]) + extent[a];
                uint64_t k = end >= dims[a] ? 1 : static_cast<uint64_t>((Wide(dims[a]) - end) / step + 1);
                k = std::max<uint64_t>(k, 1);
                if (k < worst)
                    worst = k, before = false;
            }
        }
    }
    return worst;
}

// A call and, with `repeat` (WORKLOAD.md), its repetitions, kept as one call with `times`:
// the k-th with every regular selection's origin moved by k * origin_step, after
// compute_between_s of computation.
void append_calls(const json& j, const FileSession& s, uint64_t writers, const std::string& where,
                  std::vector<IoCall>& calls)
{
    IoCall call = parse_call(j, s, writers, where);
    if (j.contains("repeat") && call.flush)
        throw std::invalid_argument(where + ".repeat: only for write calls");
    if (j.contains("repeat")) {
        const json& repeat = j["repeat"];
        call.times = repeat.at("times").get<uint64_t>();
        call.origin_step = repeat.at("origin_step").get<std::vector<long long>>();
        call.compute_between_s = repeat.value("compute_between_s", 0.0);
        for (const Selection& sel : call.selections)
            if (!sel.grid || call.origin_step.size() != sel.origin.size())
                throw std::invalid_argument(where + ".repeat: only for regular selections, "
                                            "one origin_step per axis");
        bool before = false;
        uint64_t k = first_bad_repetition(call, s.datasets, before);
        if (k < call.times) {
            if (before)
                throw std::invalid_argument(where + ".repeat: repetition " + std::to_string(k) +
                                            " starts before the dataset");
            for (size_t i = 0; i < call.selections.size(); i++) {
                auto origin = call.origin_at(i, k);
                check_fits(grid_overflow(call.selections[i].decomposition, std::vector<Wide>(origin.begin(), origin.end()),
                                         s.datasets[call.datasets[i]].dims()),
                           where + ".repeat[" + std::to_string(k) + "].selections[" + std::to_string(i) + "]");
            }
        }
    }
    calls.push_back(std::move(call));
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
