#include "platform.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "netcdf4.hpp"
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

CbNodesRule parse_default_cb_nodes(const std::string& rule)
{
    const std::string key = "platform.site_defaults.default_cb_nodes";
    const std::string per_router = "per_router:";
    if (rule.rfind(per_router, 0) != 0)
        return {parse_word<CbNodesRule::Kind>(rule, {{"nodes", CbNodesRule::Kind::nodes},
                                                     {"stripe_count", CbNodesRule::Kind::stripe_count}},
                                              key + " (or per_router:N)"),
                0};
    std::string count = rule.substr(per_router.size());
    bool digits = !count.empty() && count.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(count) < 1)
        throw std::invalid_argument(key + ": per_router:N needs a whole N >= 1, got '" + rule + "'");
    return {CbNodesRule::Kind::per_router, std::stoi(count)};
}

Hint parse_hint(const json& value, const char* key)
{
    if (value.is_boolean())
        return value.get<bool>() ? Hint::enable : Hint::disable;
    return parse_word<Hint>(value.get<std::string>(),
                            {{"automatic", Hint::automatic}, {"enable", Hint::enable}, {"disable", Hint::disable}},
                            key);
}

void parse_routers(const json& data, Platform& p)
{
    if (!data.contains("routers"))
        return;
    std::string side = data["routers"].value("side", std::string("server"));
    if (side != "client" && side != "server")
        throw std::invalid_argument("platform.routers.side: client or server");
    p.routers.side = side == "client" ? RouterSide::client : RouterSide::server;
    p.routers.count = static_cast<int>(number(data, "routers", "count"));
    p.routers.Bps = number(data, "routers", "bandwidth_mbs") * MB;
    p.routers.nodes_per_router = static_cast<int>(optional(data, "routers", "nodes_per_router", 1));
    p.routers.min_partition_nodes = static_cast<int>(optional(data, "routers", "min_partition_nodes", 0));
    if (p.routers.count < 1 || p.routers.nodes_per_router < 1 || p.routers.min_partition_nodes < 0)
        throw std::invalid_argument("platform.routers: count and nodes_per_router must be >= 1, "
                                    "min_partition_nodes >= 0");
}

void parse_filesystem(const json& data, Platform& p)
{
    const char* fs = "filesystem";
    p.fs.gpfs = data.at(fs).value("type", std::string("lustre")) == "gpfs";
    p.fs.servers = static_cast<int>(number(data, fs, "servers"));
    p.fs.targets = static_cast<int>(number(data, fs, "targets"));
    p.fs.server_Bps = number(data, fs, "server_mbs") * MB;
    p.fs.target_Bps = number(data, fs, "target_mbs") * MB;
    p.fs.degradation = optional(data, fs, "degradation", 0);
    p.fs.degradation_floor = optional(data, fs, "degradation_floor", 0);
    if (p.fs.degradation < 0 || p.fs.degradation_floor < 0 || p.fs.degradation_floor > 1)
        throw std::invalid_argument("platform.filesystem: degradation must be >= 0 and degradation_floor in [0, 1]");
    p.fs.rpc_max_bytes = static_cast<uint64_t>(number(data, fs, "rpc_max_bytes"));
    p.fs.rpc_overhead_s = number(data, fs, "rpc_overhead_s");
    p.fs.lock_conflict_s = number(data, fs, "lock_conflict_s");
    p.fs.lock_block_bytes = static_cast<uint64_t>(optional(data, fs, "lock_block_bytes", 0));
    p.fs.max_stripe_count = static_cast<int>(optional(data, fs, "max_stripe_count", p.fs.targets));
    p.fs.create_s = number(data, fs, "create_s");
    p.fs.create_per_stripe_s = optional(data, fs, "create_per_stripe_s", 0);
    p.fs.open_s = number(data, fs, "open_s");
    p.fs.close_s = number(data, fs, "close_s");
    p.fs.metadata_io_s = number(data, fs, "metadata_io_s");
    if (p.fs.servers < 1 || p.fs.targets < 1 || p.fs.target_Bps <= 0 || p.fs.server_Bps <= 0 || p.fs.rpc_max_bytes == 0)
        throw std::invalid_argument("platform.filesystem: servers, targets, bandwidths and rpc_max_bytes must be > 0");
}

// Optional: without it the client writes through (no cache, no process limit).
void parse_lustre_client(const json& data, Platform& p)
{
    const char* section = "lustre_client";
    if (!data.contains(section))
        return;
    p.cache.osc_dirty_bytes = static_cast<uint64_t>(optional(data, section, "osc_dirty_bytes", 0));
    p.cache.process_write_Bps = optional(data, section, "process_write_mbs", 0) * MB;
    p.cache.node_write_Bps = optional(data, section, "node_write_mbs", 0) * MB;
    const json& flushes = data[section].value("close_flushes", json(true));
    if (!flushes.is_boolean())
        throw std::invalid_argument("platform.lustre_client.close_flushes: expected true or false");
    p.cache.close_flushes = flushes.get<bool>();
    if (p.cache.process_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.process_write_mbs: must be >= 0");
    if (p.cache.node_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.node_write_mbs: must be >= 0");
}

}  // namespace

Platform parse_platform(const json& data)
{
    Platform p;
    p.name = data.value("name", std::string("platform"));
    p.compute.cores_per_node = static_cast<int>(number(data, "compute", "cores_per_node"));
    p.compute.nic_Bps = number(data, "compute", "nic_mbs") * MB;
    p.network.mpi_fabric_Bps = number(data, "network", "mpi_fabric_mbs") * MB;
    p.network.storage_fabric_Bps = number(data, "network", "storage_fabric_mbs") * MB;
    p.network.collective_step_s = number(data, "network", "collective_step_s");
    p.network.memcpy_Bps = number(data, "network", "memcpy_mbs") * MB;
    parse_routers(data, p);
    parse_filesystem(data, p);
    parse_lustre_client(data, p);
    p.hdf5.dataset_create_s = optional(data, "hdf5", "dataset_create_s", 0);
    const auto& site = data.at("site_defaults");
    p.site.driver = parse_driver(site.value("romio_driver", std::string("generic")));
    p.site.default_cb_nodes = parse_default_cb_nodes(site.value("default_cb_nodes", std::string("nodes")));
    if (p.compute.cores_per_node < 1 || p.compute.nic_Bps <= 0)
        throw std::invalid_argument("platform.compute: cores_per_node and nic_mbs must be > 0");
    return p;
}

void place_job(Platform& p, int nodes)
{
    if (p.routers.side != RouterSide::client || p.routers.min_partition_nodes == 0)
        return;
    int partition = std::max(nodes, p.routers.min_partition_nodes);
    int routers = (partition + p.routers.nodes_per_router - 1) / p.routers.nodes_per_router;
    p.routers.job_nodes = nodes;
    p.routers.job_routers = std::min({routers, p.routers.count, nodes});
}

namespace {

void apply_lustre(const json& l, FileSettings& s, const Platform& p)
{
    if (l.contains("stripe_count")) {
        int c = l["stripe_count"].get<int>();
        s.stripe_count = c < 0 ? p.fs.targets : c;
    }
    s.stripe_count = std::clamp(s.stripe_count, 1, std::min(p.fs.max_stripe_count, p.fs.targets));
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
        s.cb_write = parse_hint(m["romio_cb_write"], "mpiio.romio_cb_write");
    if (m.contains("cb_nodes"))
        s.cb_nodes = m["cb_nodes"].get<int>();
    if (m.contains("cb_config_list"))
        s.cb_config_list = m["cb_config_list"].get<std::string>();
    if (m.contains("cb_buffer_size"))
        s.cb_buffer_size = m["cb_buffer_size"].get<uint64_t>();
    if (m.contains("romio_ds_write"))
        s.ds_write = parse_hint(m["romio_ds_write"], "mpiio.romio_ds_write");
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

Fcoll parse_fcoll(const std::string& name)
{
    return parse_word<Fcoll>(name,
                             {{"vulcan", Fcoll::vulcan},
                              {"dynamic_gen2", Fcoll::dynamic_gen2},
                              {"two_phase", Fcoll::two_phase},
                              {"individual", Fcoll::individual}},
                             "openmpi.fcoll (the components iosim models)");
}

// Open MPI's MCA parameters; OMPIO also reads the file's own cb_buffer_size hint (the
// config's, not ROMIO's default from the site).
void apply_openmpi(const json& o, const json& config_mpiio, FileSettings& s)
{
    s.mpi_io = o.value("io", std::string("ompio")) == "romio321" ? MpiIo::romio : MpiIo::ompio;
    if (o.contains("fcoll"))
        s.fcoll = parse_fcoll(o["fcoll"].get<std::string>());
    s.ompio_aggregators = o.value("num_aggregators", 0);
    s.ompio_bytes_per_agg = o.value("bytes_per_agg", s.ompio_bytes_per_agg);
    s.cb_buffer_size_hint = config_mpiio.contains("cb_buffer_size");
    if (s.ompio_bytes_per_agg == 0)
        throw std::invalid_argument("openmpi.bytes_per_agg: must be > 0");
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
    out.fill_value = ds.fill_value;
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
                              const FileSession& file, const Platform& platform, bool openmpi)
{
    const json& site = platform_data.at("site_defaults");
    auto block = [&](const char* name) {
        return overlay(site.value(name, json::object()), file_config.value(name, json::object()));
    };
    FileSettings s;
    apply_lustre(block("lustre"), s, platform);
    apply_mpiio(block("mpiio"), s);
    if (openmpi)
        apply_openmpi(file_config.value("openmpi", json::object()), file_config.value("mpiio", json::object()), s);
    apply_hdf5(site.value("hdf5", json::object()), s);
    if (file.netcdf4)  // netCDF sets its own file access properties; a config's override them
        apply_netcdf4_file_access(s);
    apply_hdf5(file_config.value("hdf5", json::object()), s);
    json site_dataset = site.value("dataset", json::object());
    json per_dataset = file_config.value("datasets", json::array());
    for (size_t i = 0; i < file.datasets.size(); i++) {
        json d = overlay(site_dataset, i < per_dataset.size() ? per_dataset[i] : json::object());
        s.datasets.push_back(dataset_settings(d, file.datasets[i]));
    }
    return s;
}

}  // namespace iosim
