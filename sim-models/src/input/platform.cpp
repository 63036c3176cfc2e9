#include "input/platform.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "fs/lustre_layout.hpp"
#include "input/words.hpp"
#include "input/workload.hpp"
#include "iolib/io_library.hpp"
#include "model/config_keys.hpp"

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

// Optional: what stands between a target and its drives (fs/partial_stripe_writes.hpp).
void parse_target_raid(const json& data, FileSystem& out)
{
    const char* fs = "filesystem";
    out.target_raid = parse_word<TargetRaid>(
        data.at(fs).value("target_raid", std::string("none")),
        {{"none", TargetRaid::none}, {"parity", TargetRaid::parity}, {"cached_array", TargetRaid::cached_array}},
        "platform.filesystem.target_raid");
    if (out.target_raid == TargetRaid::parity) {
        out.read_modify_write_passes = optional(data, fs, "read_modify_write_passes", 2);
        if (out.read_modify_write_passes < 1)
            throw std::invalid_argument("platform.filesystem.read_modify_write_passes: must be >= 1");
    } else if (out.target_raid == TargetRaid::cached_array) {
        out.cache_write_s = number(data, fs, "cache_write_s");
        if (out.cache_write_s < 0)
            throw std::invalid_argument("platform.filesystem.cache_write_s: a cached_array target's "
                                        "cache write time must be >= 0");
    }
}

// A true-or-false leaf platform.<section>.<key>, `absent` where the model has none.
bool flag(const json& data, const char* section, const char* key, bool absent)
{
    if (!data.contains(section) || !data[section].contains(key))
        return absent;
    const json& v = data[section][key];
    if (!v.is_boolean())
        throw std::invalid_argument(std::string("platform.") + section + "." + key + ": expected true or false");
    return v.get<bool>();
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
    p.fs.expanded_grants = flag(data, fs, "expanded_grants", false);
    parse_target_raid(data, p.fs);
    p.fs.lock_block_bytes = static_cast<uint64_t>(optional(data, fs, "lock_block_bytes", 0));
    p.fs.token_ops_per_s = optional(data, fs, "token_ops_per_s", 0);
    if (p.fs.token_ops_per_s < 0)
        throw std::invalid_argument("platform.filesystem.token_ops_per_s: must be >= 0 (0: no token server)");
    p.fs.max_stripe_count = static_cast<int>(optional(data, fs, "max_stripe_count", p.fs.targets));
    p.fs.create_s = number(data, fs, "create_s");
    p.fs.create_per_stripe_s = optional(data, fs, "create_per_stripe_s", 0);
    p.fs.mds_create_per_s = optional(data, fs, "mds_create_per_s", 0);
    p.fs.metadata_servers = static_cast<int>(optional(data, fs, "metadata_servers", 1));
    if (p.fs.mds_create_per_s < 0 || p.fs.metadata_servers < 1)
        throw std::invalid_argument("platform.filesystem: mds_create_per_s must be >= 0 and metadata_servers >= 1");
    p.fs.open_s = number(data, fs, "open_s");
    p.fs.close_s = number(data, fs, "close_s");
    p.fs.metadata_io_s = number(data, fs, "metadata_io_s");
    if (p.fs.servers < 1 || p.fs.targets < 1 || p.fs.target_Bps <= 0 || p.fs.server_Bps <= 0 || p.fs.rpc_max_bytes == 0)
        throw std::invalid_argument("platform.filesystem: servers, targets, bandwidths and rpc_max_bytes must be > 0");
    // GPFS stripes every file over every NSD by block and locks by block: without one, no file
    // has a layout.
    if (p.fs.gpfs && p.fs.lock_block_bytes == 0)
        throw std::invalid_argument("platform.filesystem.lock_block_bytes: missing, and a GPFS file "
                                    "system needs its block size (its striping and lock unit)");
    parse_storage(data.at(fs), p.fs);  // pools and metadata targets (lustre_layout.hpp)
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
    p.cache.contended_write_Bps = optional(data, section, "contended_write_mbs", 0) * MB;
    p.cache.write_call_s = optional(data, section, "write_call_s", 0);
    p.cache.cached_read_Bps = optional(data, section, "cached_read_mbs", 0) * MB;
    p.cache.locked_write_s = optional(data, section, "locked_write_s", 0);
    double page_bytes = optional(data, section, "page_bytes", 4096);
    p.cache.close_flushes = flag(data, section, "close_flushes", true);
    p.cache.holds_dirty_pages = flag(data, section, "holds_dirty_pages", false);
    p.cache.writeback_folio_s = optional(data, section, "writeback_folio_s", 0);
    double max_folio_bytes = optional(data, section, "max_folio_bytes", page_bytes);
    if (p.cache.process_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.process_write_mbs: must be >= 0");
    if (p.cache.node_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.node_write_mbs: must be >= 0");
    if (p.cache.contended_write_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.contended_write_mbs: must be >= 0");
    if (p.cache.write_call_s < 0)
        throw std::invalid_argument("platform.lustre_client.write_call_s: must be >= 0");
    if (p.cache.cached_read_Bps < 0)
        throw std::invalid_argument("platform.lustre_client.cached_read_mbs: must be >= 0");
    if (p.cache.locked_write_s < 0)
        throw std::invalid_argument("platform.lustre_client.locked_write_s: must be >= 0");
    if (page_bytes < 1)
        throw std::invalid_argument("platform.lustre_client.page_bytes: must be >= 1");
    if (p.cache.writeback_folio_s < 0)
        throw std::invalid_argument("platform.lustre_client.writeback_folio_s: must be >= 0");
    if (max_folio_bytes < page_bytes)
        throw std::invalid_argument("platform.lustre_client.max_folio_bytes: must be >= page_bytes");
    p.cache.page_bytes = static_cast<uint64_t>(page_bytes);
    p.cache.max_folio_bytes = static_cast<uint64_t>(max_folio_bytes);
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
    p.network.oversubscribed_step_s = optional(data, "network", "oversubscribed_step_s", 0);
    p.network.memcpy_Bps = number(data, "network", "memcpy_mbs") * MB;
    p.network.first_touch_Bps = optional(data, "network", "first_touch_mbs", 0) * MB;
    p.network.first_touch_warm_bytes = static_cast<uint64_t>(optional(data, "network", "first_touch_warm_bytes", 0));
    if (p.network.first_touch_Bps < 0)
        throw std::invalid_argument("platform.network.first_touch_mbs: must be >= 0");
    parse_routers(data, p);
    parse_filesystem(data, p);
    parse_lustre_client(data, p);
    p.hdf5.dataset_create_s = optional(data, "hdf5", "dataset_create_s", 0);
    p.hdf5.fills_default_value = flag(data, "hdf5", "fills_default_value", p.hdf5.fills_default_value);
    const auto& site = data.at("site_defaults");
    p.site.driver = parse_driver(site.value("romio_driver", std::string("generic")));
    p.site.default_cb_nodes = parse_default_cb_nodes(site.value("default_cb_nodes", std::string("nodes")));
    p.site.aggregator_placement = parse_word<AggregatorPlacement>(
        site.value("aggregator_placement", std::string("packed")),
        {{"packed", AggregatorPlacement::packed}, {"spread", AggregatorPlacement::spread}},
        "platform.site_defaults.aggregator_placement");
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

using config::DatasetKey;
using config::Hdf5Key;
using config::LustreKey;
using config::MpiioKey;
using config::OpenmpiKey;

void apply_lustre(const json& l, FileSettings& s, const Platform& p)
{
    config::apply_block<LustreKey>(l, "lustre", [&](LustreKey key, const json& v) {
        switch (key) {
        case LustreKey::stripe_count: {
            int c = v.get<int>();
            s.stripe_count = c < 0 ? p.fs.targets : c;
            break;
        }
        case LustreKey::stripe_size: s.stripe_size = v.get<uint64_t>(); break;
        case LustreKey::stripe_offset: s.stripe_offset = v.get<int>(); break;
        case LustreKey::pool:        // the layout's pool and components: lustre_layout.cpp
        case LustreKey::components: break;
        }
    });
    s.stripe_count = std::clamp(s.stripe_count, 1, std::min(p.fs.max_stripe_count, p.fs.targets));
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
    config::apply_block<MpiioKey>(m, "mpiio", [&](MpiioKey key, const json& v) {
        switch (key) {
        case MpiioKey::romio_cb_write: s.cb_write = parse_hint(v, "mpiio.romio_cb_write"); break;
        case MpiioKey::cb_nodes: s.cb_nodes = v.get<int>(); break;
        case MpiioKey::cb_config_list: s.cb_config_list = v.get<std::string>(); break;
        case MpiioKey::cb_buffer_size: s.cb_buffer_size = v.get<uint64_t>(); break;
        case MpiioKey::romio_ds_write: s.ds_write = parse_hint(v, "mpiio.romio_ds_write"); break;
        case MpiioKey::ind_wr_buffer_size: s.ind_wr_buffer_size = v.get<uint64_t>(); break;
        case MpiioKey::IBM_largeblock_io: s.gpfs_largeblock = v.get<bool>(); break;
        case MpiioKey::hints:
            s.co_ratio = positive_hint(v, "romio_lustre_co_ratio", s.co_ratio);
            s.bgl_nodes_pset = positive_hint(v, "bgl_nodes_pset", s.bgl_nodes_pset);
            break;
        }
    });
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
    s.mpi_io = MpiIo::ompio;
    s.ompio_aggregators = 0;
    config::apply_block<OpenmpiKey>(o, "openmpi", [&](OpenmpiKey key, const json& v) {
        switch (key) {
        case OpenmpiKey::io: s.mpi_io = v.get<std::string>() == "romio321" ? MpiIo::romio : MpiIo::ompio; break;
        case OpenmpiKey::fcoll: s.fcoll = parse_fcoll(v.get<std::string>()); break;
        case OpenmpiKey::num_aggregators: s.ompio_aggregators = v.get<int>(); break;
        case OpenmpiKey::bytes_per_agg: s.ompio_bytes_per_agg = v.get<uint64_t>(); break;
        }
    });
    s.cb_buffer_size_hint = config_mpiio.contains("cb_buffer_size");
}

void apply_hdf5(const json& h, FileSettings& s)
{
    config::apply_block<Hdf5Key>(h, "hdf5", [&](Hdf5Key key, const json& v) {
        switch (key) {
        case Hdf5Key::alignment:
            s.align_threshold = v.value("threshold", uint64_t{1});
            s.align_boundary = std::max<uint64_t>(1, v.value("boundary", uint64_t{1}));
            break;
        case Hdf5Key::meta_block_size: s.meta_block_size = v.get<uint64_t>(); break;
        case Hdf5Key::coll_metadata_write: s.coll_metadata_write = v.get<bool>(); break;
        case Hdf5Key::all_coll_metadata_ops: s.all_coll_metadata_ops = v.get<bool>(); break;
        }
    });
}

// Each library's own block: the file's library reads its settings from it, the others' blocks
// are checked.
void apply_library_blocks(const json& file_config, const IoLibrary& file_library, FileSettings& s)
{
    for (const IoLibrary* library : io_libraries()) {
        const char* block = library->config_block();
        if (!block)
            continue;
        const json given = file_config.value(block, json::object());
        if (library == &file_library)
            s.library = library->read_settings(given);
        else
            config::check_block(given, block);
    }
}

DatasetSettings dataset_settings(const json& d, const Dataset& ds)
{
    DatasetSettings out;
    out.chunk_dims = ds.chunk_dims;
    out.collective = ds.collective;
    out.fill_time = ds.fill_time;
    out.fill_value = ds.fill_value;
    config::apply_block<DatasetKey>(d, "dataset", [&](DatasetKey key, const json& v) {
        switch (key) {
        case DatasetKey::chunk_dims: out.chunk_dims = v.get<std::vector<uint64_t>>(); break;
        case DatasetKey::chunk_size: out.chunk_size = v.get<uint64_t>(); break;
        case DatasetKey::transfer_mode:
            out.collective = v.get<std::string>() == "collective";
            out.transfer_forced = true;
            break;
        case DatasetKey::fill_time: out.fill_time = parse_fill_time(v.get<std::string>(), "dataset.fill_time"); break;
        }
    });
    if (!out.chunk_dims.empty() && out.chunk_dims.size() != ds.grid.size())
        throw std::invalid_argument("dataset " + ds.name + ": chunk_dims needs one entry per axis");
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

// What a file's config may hold, as iotwin.model.sim resolves it for iosim: the layers' blocks
// and the I/O libraries' own.
void check_file_config(const json& file_config)
{
    std::vector<std::string> allowed = {"openmpi", "lustre", "mpiio"};
    for (const IoLibrary* library : io_libraries())
        if (library->config_block())
            allowed.push_back(library->config_block());
    allowed.insert(allowed.end(), {"hdf5", "datasets"});
    if (!file_config.is_object())
        throw std::invalid_argument("config: expected a mapping of blocks per file");
    for (const auto& [name, value] : file_config.items()) {
        if (std::find(allowed.begin(), allowed.end(), name) != allowed.end())
            continue;
        std::string listed;
        for (const std::string& block : allowed)
            listed += (listed.empty() ? "" : ", ") + block;
        throw std::invalid_argument("config: " + name + ": not a block iosim reads (" + listed + ")");
    }
}

// What the program set on its file access list (a capture records it).
static void apply_program_access(const Hdf5Access& a, FileSettings& s)
{
    s.coll_metadata_write = a.coll_metadata_write.value_or(s.coll_metadata_write);
    s.all_coll_metadata_ops = a.all_coll_metadata_ops.value_or(s.all_coll_metadata_ops);
}

FileSettings resolve_settings(const json& platform_data, const json& file_config,
                              const FileSession& file, const Platform& platform, bool openmpi)
{
    check_file_config(file_config);
    const json& site = platform_data.at("site_defaults");
    auto block = [&](const char* name) {
        return overlay(site.value(name, json::object()), file_config.value(name, json::object()));
    };
    FileSettings s;
    apply_lustre(block("lustre"), s, platform);
    apply_layout(block("lustre"), file_config.value("lustre", json::object()), s, platform);
    apply_mpiio(block("mpiio"), s);
    const json config_openmpi = file_config.value("openmpi", json::object());
    if (openmpi)
        apply_openmpi(config_openmpi, file_config.value("mpiio", json::object()), s);
    else
        config::check_block(config_openmpi, "openmpi");  // MCA parameters: Open MPI's only
    const IoLibrary& library = io_library(file.api);
    apply_library_blocks(file_config, library, s);
    apply_hdf5(site.value("hdf5", json::object()), s);
    library.set_file_defaults(s);  // a library's own file settings; the program's and a config's override them
    apply_program_access(file.hdf5_access, s);
    apply_hdf5(file_config.value("hdf5", json::object()), s);
    json site_dataset = site.value("dataset", json::object());
    json per_dataset = file_config.value("datasets", json::array());
    for (size_t i = 0; i < file.datasets.size(); i++) {
        json d = overlay(site_dataset, i < per_dataset.size() ? per_dataset[i] : json::object());
        s.datasets.push_back(dataset_settings(d, file.datasets[i]));
        library.set_dataset_defaults(s.datasets.back(), platform);
    }
    return s;
}

}  // namespace iosim
