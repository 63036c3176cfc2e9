#include "workload.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

extern "C" {
#include "decomposition.h"
}

namespace iosim {

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
    if (mode == "shared")
        return FileMode::shared;
    if (mode == "per-rank")
        return FileMode::per_rank;
    if (mode == "groups")
        return FileMode::groups;
    throw std::invalid_argument(where + ".mode: unknown mode '" + mode + "'");
}

Dataset parse_dataset(const json& j, const std::string& where)
{
    Dataset ds;
    ds.name = j.at("name").get<std::string>();
    ds.element_bytes = j.at("element_bytes").get<uint64_t>();
    parse_decomposition(j.at("decomposition"), ds, where + ".decomposition");
    if (j.contains("chunk_dims") && !j["chunk_dims"].is_null())
        ds.chunk_dims = u64_list(j["chunk_dims"], where + ".chunk_dims");
    ds.collective = j.value("transfer", std::string("collective")) == "collective";
    return ds;
}

}  // namespace

Workload parse_workload(const json& data)
{
    Workload w;
    w.name = data.value("name", std::string("workload"));
    w.ranks = data.at("ranks").get<int>();
    w.ranks_per_node = data.value("ranks_per_node", 0);
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
        s.hdf5 = f.value("api", std::string("hdf5")) == "hdf5";
        s.compute_before_s = f.value("compute_before_s", 0.0);
        s.one_call = f.value("write_calls", std::string("per-dataset")) == "one-call";
        s.flushes = f.value("flushes", 0);
        const auto& dsets = f.at("datasets");
        for (size_t d = 0; d < dsets.size(); d++) {
            auto ds = parse_dataset(dsets[d], where + ".datasets[" + std::to_string(d) + "]");
            uint64_t expected = static_cast<uint64_t>(s.writers_per_instance(w.ranks));
            if (s.mode == FileMode::per_rank)
                expected = 1;
            if (ds.writers() != expected)
                throw std::invalid_argument(where + ".datasets[" + std::to_string(d) +
                                            "].decomposition: the grid has " +
                                            std::to_string(ds.writers()) + " writers, the file has " +
                                            std::to_string(expected));
            s.datasets.push_back(std::move(ds));
        }
        w.files.push_back(std::move(s));
    }
    return w;
}

}  // namespace iosim
