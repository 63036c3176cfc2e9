#include "platform.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "words.hpp"

namespace iosim {

using nlohmann::json;

namespace {

constexpr double MB = 1e6;

// A required number at `section.key`, named in the error if missing or not a number.
double number(const json& data, const char* section, const char* key)
{
    std::string path = std::string("platform.") + section + "." + key;
    if (!data.contains(section) || !data[section].contains(key))
        throw std::invalid_argument(path + ": missing");
    const auto& v = data[section][key];
    if (!v.is_number())
        throw std::invalid_argument(path + ": expected a number");
    return v.get<double>();
}

double optional(const json& data, const char* section, const char* key, double fallback)
{
    if (!data.contains(section) || !data[section].contains(key))
        return fallback;
    return number(data, section, key);
}

RomioDriver parse_driver(const std::string& name)
{
    return parse_word<RomioDriver>(
        name, {{"lustre", RomioDriver::lustre}, {"gpfs", RomioDriver::gpfs},
               {"generic", RomioDriver::generic}},
        "platform.site_defaults.romio_driver");
}

void check_default_cb_nodes(const std::string& rule)
{
    const std::string per_router = "per_router:";
    bool per = rule.rfind(per_router, 0) == 0 && rule.size() > per_router.size() &&
               rule.find_first_not_of("0123456789", per_router.size()) == std::string::npos &&
               std::stoi(rule.substr(per_router.size())) > 0;
    if (rule != "nodes" && rule != "stripe_count" && !per)
        throw std::invalid_argument("platform.site_defaults.default_cb_nodes: nodes, stripe_count or per_router:N, got '" +
                                    rule + "'");
}

void parse_routers(const json& data, Platform& p)
{
    if (!data.contains("routers"))
        return;
    std::string side = data["routers"].value("side", std::string("server"));
    if (side != "client" && side != "server")
        throw std::invalid_argument("platform.routers.side: client or server");
    p.router_side = side == "client" ? RouterSide::client : RouterSide::server;
    p.routers = static_cast<int>(number(data, "routers", "count"));
    p.router_Bps = number(data, "routers", "bandwidth_mbs") * MB;
    p.nodes_per_router = static_cast<int>(optional(data, "routers", "nodes_per_router", 1));
    p.min_partition_nodes = static_cast<int>(optional(data, "routers", "min_partition_nodes", 0));
    if (p.routers < 1 || p.nodes_per_router < 1 || p.min_partition_nodes < 0)
        throw std::invalid_argument("platform.routers: count and nodes_per_router must be >= 1, "
                                    "min_partition_nodes >= 0");
}

void parse_filesystem(const json& data, Platform& p)
{
    const char* fs = "filesystem";
    p.gpfs = data.at(fs).value("type", std::string("lustre")) == "gpfs";
    p.servers = static_cast<int>(number(data, fs, "servers"));
    p.targets = static_cast<int>(number(data, fs, "targets"));
    p.server_Bps = number(data, fs, "server_mbs") * MB;
    p.target_Bps = number(data, fs, "target_mbs") * MB;
    p.degradation = optional(data, fs, "degradation", 0);
    p.rpc_max_bytes = static_cast<uint64_t>(number(data, fs, "rpc_max_bytes"));
    p.rpc_overhead_s = number(data, fs, "rpc_overhead_s");
    p.lock_conflict_s = number(data, fs, "lock_conflict_s");
    p.lock_block_bytes = static_cast<uint64_t>(optional(data, fs, "lock_block_bytes", 0));
    p.max_stripe_count = static_cast<int>(optional(data, fs, "max_stripe_count", p.targets));
    p.create_s = number(data, fs, "create_s");
    p.create_per_stripe_s = optional(data, fs, "create_per_stripe_s", 0);
    p.open_s = number(data, fs, "open_s");
    p.close_s = number(data, fs, "close_s");
    p.metadata_io_s = number(data, fs, "metadata_io_s");
    if (p.servers < 1 || p.targets < 1 || p.target_Bps <= 0 || p.server_Bps <= 0 || p.rpc_max_bytes == 0)
        throw std::invalid_argument("platform.filesystem: servers, targets, bandwidths and rpc_max_bytes must be > 0");
}

// Optional: without it the client writes through (no cache, no process limit).
void parse_lustre_client(const json& data, Platform& p)
{
    const char* section = "lustre_client";
    if (!data.contains(section))
        return;
    p.osc_dirty_bytes = static_cast<uint64_t>(optional(data, section, "osc_dirty_bytes", 0));
    p.process_write_Bps = optional(data, section, "process_write_mbs", 0) * MB;
    p.node_write_Bps = optional(data, section, "node_write_mbs", 0) * MB;
    const json& flushes = data[section].value("close_flushes", json(true));
    if (!flushes.is_boolean())
        throw std::invalid_argument("platform.lustre_client.close_flushes: expected true or false");
    p.close_flushes = flushes.get<bool>();
    if (p.process_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.process_write_mbs: must be >= 0");
    if (p.node_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.node_write_mbs: must be >= 0");
}

}  // namespace

Platform parse_platform(const json& data)
{
    Platform p;
    p.name = data.value("name", std::string("platform"));
    p.cores_per_node = static_cast<int>(number(data, "compute", "cores_per_node"));
    p.nic_Bps = number(data, "compute", "nic_mbs") * MB;
    p.mpi_fabric_Bps = number(data, "network", "mpi_fabric_mbs") * MB;
    p.storage_fabric_Bps = number(data, "network", "storage_fabric_mbs") * MB;
    p.collective_step_s = number(data, "network", "collective_step_s");
    p.memcpy_Bps = number(data, "network", "memcpy_mbs") * MB;
    parse_routers(data, p);
    parse_filesystem(data, p);
    parse_lustre_client(data, p);
    p.dataset_create_s = optional(data, "hdf5", "dataset_create_s", 0);
    const auto& site = data.at("site_defaults");
    p.driver = parse_driver(site.value("romio_driver", std::string("generic")));
    p.default_cb_nodes = site.value("default_cb_nodes", std::string("nodes"));
    check_default_cb_nodes(p.default_cb_nodes);
    if (p.cores_per_node < 1 || p.nic_Bps <= 0)
        throw std::invalid_argument("platform.compute: cores_per_node and nic_mbs must be > 0");
    return p;
}

void place_job(Platform& p, int nodes)
{
    if (p.router_side != RouterSide::client || p.min_partition_nodes == 0)
        return;
    int partition = std::max(nodes, p.min_partition_nodes);
    int routers = (partition + p.nodes_per_router - 1) / p.nodes_per_router;
    p.job_nodes = nodes;
    p.job_routers = std::min({routers, p.routers, nodes});
}

namespace {

bool is_enabled(const json& v)
{
    return v.is_boolean() ? v.get<bool>() : v.get<std::string>() == "enable";
}

void apply_lustre(const json& l, FileSettings& s, const Platform& p)
{
    if (l.contains("stripe_count")) {
        int c = l["stripe_count"].get<int>();
        s.stripe_count = c < 0 ? p.targets : c;
    }
    s.stripe_count = std::clamp(s.stripe_count, 1, std::min(p.max_stripe_count, p.targets));
    if (l.contains("stripe_size"))
        s.stripe_size = l["stripe_size"].get<uint64_t>();
    if (l.contains("stripe_offset"))
        s.stripe_offset = l["stripe_offset"].get<int>();
    if (s.stripe_size == 0)
        throw std::invalid_argument("lustre.stripe_size: must be > 0");
}

// An MPI-IO hint that must be a positive integer (hints are strings; a number is accepted).
int positive_hint(const json& hints, const char* name, int fallback)
{
    if (!hints.contains(name))
        return fallback;
    const json& v = hints[name];
    std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    size_t used = 0;
    int value = 0;
    try {
        value = std::stoi(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || value < 1)
        throw std::invalid_argument(std::string("mpiio.hints.") + name + ": expected a positive integer, got '" +
                                    text + "'");
    return value;
}

void apply_mpiio(const json& m, FileSettings& s)
{
    if (m.contains("romio_cb_write"))
        s.cb_write = m["romio_cb_write"].get<std::string>();
    if (m.contains("cb_nodes"))
        s.cb_nodes = m["cb_nodes"].get<int>();
    if (m.contains("cb_config_list"))
        s.cb_config_list = m["cb_config_list"].get<std::string>();
    if (m.contains("cb_buffer_size"))
        s.cb_buffer_size = m["cb_buffer_size"].get<uint64_t>();
    if (m.contains("romio_ds_write"))
        s.ds_write = m["romio_ds_write"].get<std::string>();
    if (m.contains("ind_wr_buffer_size"))
        s.ind_wr_buffer_size = m["ind_wr_buffer_size"].get<uint64_t>();
    if (m.contains("IBM_largeblock_io"))
        s.gpfs_largeblock = m["IBM_largeblock_io"].get<bool>();
    const json hints = m.value("hints", json::object());
    s.co_ratio = positive_hint(hints, "romio_lustre_co_ratio", s.co_ratio);
    s.bgl_nodes_pset = positive_hint(hints, "bgl_nodes_pset", s.bgl_nodes_pset);
    if (s.cb_buffer_size == 0)
        throw std::invalid_argument("mpiio.cb_buffer_size: must be > 0");
}

void apply_hdf5(const json& h, FileSettings& s)
{
    if (h.contains("alignment")) {
        s.align_threshold = h["alignment"].value("threshold", uint64_t{1});
        s.align_boundary = std::max<uint64_t>(1, h["alignment"].value("boundary", uint64_t{1}));
    }
    if (h.contains("meta_block_size"))
        s.meta_block_size = h["meta_block_size"].get<uint64_t>();
    if (h.contains("coll_metadata_write"))
        s.coll_metadata_write = h["coll_metadata_write"].get<bool>();
    if (h.contains("all_coll_metadata_ops"))
        s.all_coll_metadata_ops = h["all_coll_metadata_ops"].get<bool>();
}

DatasetSettings dataset_settings(const json& d, const Dataset& ds)
{
    DatasetSettings out;
    out.chunk_dims = ds.chunk_dims;
    out.collective = ds.collective;
    out.fill_time = ds.fill_time;
    if (d.contains("chunk_dims"))
        out.chunk_dims = d["chunk_dims"].get<std::vector<uint64_t>>();
    if (d.contains("chunk_size"))
        out.chunk_size = d["chunk_size"].get<uint64_t>();
    if (d.contains("transfer_mode")) {
        out.collective = d["transfer_mode"].get<std::string>() == "collective";
        out.transfer_forced = true;
    }
    if (d.contains("fill_time"))
        out.fill_time = parse_fill_time(d["fill_time"].get<std::string>(), "dataset.fill_time");
    if (!out.chunk_dims.empty() && out.chunk_dims.size() != ds.grid.size())
        throw std::invalid_argument("dataset " + ds.name + ": chunk_dims needs one entry per axis");
    if (std::find(out.chunk_dims.begin(), out.chunk_dims.end(), 0) != out.chunk_dims.end())
        throw std::invalid_argument("dataset " + ds.name + ": chunk_dims must all be >= 1");
    return out;
}

// The union of two JSON objects, `over` winning, one level deep per block.
json overlay(const json& base, const json& over)
{
    json out = base.is_object() ? base : json::object();
    if (over.is_object())
        out.merge_patch(over);
    return out;
}

}  // namespace

FileSettings resolve_settings(const json& platform_data, const json& file_config,
                              const FileSession& file, const Platform& platform)
{
    const json& site = platform_data.at("site_defaults");
    auto block = [&](const char* name) {
        return overlay(site.value(name, json::object()), file_config.value(name, json::object()));
    };
    FileSettings s;
    apply_lustre(block("lustre"), s, platform);
    apply_mpiio(block("mpiio"), s);
    apply_hdf5(block("hdf5"), s);
    if (!is_enabled(json(s.cb_write)) && s.cb_write != "disable" && s.cb_write != "automatic")
        throw std::invalid_argument("mpiio.romio_cb_write: enable, disable or automatic");
    json site_dataset = site.value("dataset", json::object());
    json per_dataset = file_config.value("datasets", json::array());
    for (size_t i = 0; i < file.datasets.size(); i++) {
        json d = overlay(site_dataset, i < per_dataset.size() ? per_dataset[i] : json::object());
        s.datasets.push_back(dataset_settings(d, file.datasets[i]));
    }
    return s;
}

}  // namespace iosim
