#include "fs/lustre_layout.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace iosim {

using nlohmann::json;

namespace {

constexpr double MB = 1e6;
constexpr const char* plain_keys[] = {"stripe_count", "stripe_size", "stripe_offset", "pool"};

double positive(const json& node, const std::string& path)
{
    if (!node.is_number() || node.get<double>() <= 0)
        throw std::invalid_argument(path + ": expected a positive number");
    return node.get<double>();
}

Pool pool_of(const json& node, const std::string& name, const FileSystem& fs)
{
    std::string path = "platform.filesystem.pools." + name;
    if (!node.is_object() || !node.contains("targets") || !node.contains("target_mbs"))
        throw std::invalid_argument(path + ": expected {targets, target_mbs, servers}");
    Pool pool;
    pool.name = name;
    pool.targets = static_cast<int>(positive(node["targets"], path + ".targets"));
    pool.target_Bps = positive(node["target_mbs"], path + ".target_mbs") * MB;
    pool.servers = std::min(fs.servers, static_cast<int>(positive(node.value("servers", json(fs.servers)),
                                                                  path + ".servers")));
    return pool;
}

int pool_index(const json& name, const FileSystem& fs, const std::string& path)
{
    if (!name.is_string())
        throw std::invalid_argument(path + ": expected a pool name");
    for (size_t i = 0; i < fs.pools.size(); i++)
        if (fs.pools[i].name == name.get<std::string>())
            return static_cast<int>(i);
    std::string known;
    for (const Pool& pool : fs.pools)
        if (!pool.name.empty())
            known += (known.empty() ? "" : ", ") + pool.name;
    throw std::invalid_argument(path + ": no pool '" + name.get<std::string>() + "' on this platform (" +
                                (known.empty() ? "it has none" : "pools: " + known) + ")");
}

uint64_t component_end(const json& end, const std::string& path)
{
    if (end.is_string() && end.get<std::string>() == "eof")
        return UINT64_MAX;
    if (!end.is_number_unsigned() || end.get<uint64_t>() == 0)
        throw std::invalid_argument(path + ": expected a size or eof");
    return end.get<uint64_t>();
}

// A stripe count on `pool`: -1 is every target; within the file system's limit.
int stripes_on(int count, const Pool& pool, const FileSystem& fs)
{
    int c = count < 0 ? pool.targets : count;
    return std::clamp(c, 1, std::min(fs.max_stripe_count, pool.targets));
}

LayoutComponent component_of(const json& c, const std::string& path, const LayoutComponent& plain,
                             uint64_t start, const FileSystem& fs)
{
    if (!c.is_object() || !c.contains("end"))
        throw std::invalid_argument(path + ": expected {end, stripe_count, stripe_size, pool, mdt}");
    LayoutComponent out = plain;
    out.end = component_end(c["end"], path + ".end");
    if (out.end <= start)
        throw std::invalid_argument(path + ".end: components must end at increasing offsets");
    out.mdt = c.value("mdt", false);
    if (out.mdt) {
        uint64_t bytes = out.end - start;
        if (fs.mdts == 0)
            throw std::invalid_argument(path + ".mdt: this platform has no Data-on-MDT");
        if (start != 0 || out.end == UINT64_MAX || bytes > fs.dom_max_bytes)
            throw std::invalid_argument(path + ": a Data-on-MDT component is the file's first, of at most " +
                                        std::to_string(fs.dom_max_bytes) + " bytes (filesystem.dom_max_bytes)");
        out.stripe_count = 1;
        out.stripe_size = bytes;
        return out;
    }
    if (c.contains("pool"))
        out.pool = pool_index(c["pool"], fs, path + ".pool");
    if (c.contains("stripe_size"))
        out.stripe_size = c["stripe_size"].get<uint64_t>();
    if (out.stripe_size == 0)
        throw std::invalid_argument(path + ".stripe_size: must be > 0");
    out.stripe_count = stripes_on(c.contains("stripe_count") ? c["stripe_count"].get<int>() : plain.stripe_count,
                                  fs.pools[out.pool], fs);
    if (out.end != UINT64_MAX && out.end % out.stripe_size != 0)
        throw std::invalid_argument(path + ".end: " + std::to_string(out.end) +
                                    " is not a multiple of the component's stripe size");
    return out;
}

bool sets_plain_layout(const json& config)
{
    return std::any_of(std::begin(plain_keys), std::end(plain_keys),
                       [&](const char* key) { return config.contains(key); });
}

}  // namespace

void parse_storage(const json& filesystem, FileSystem& fs)
{
    Pool own;
    own.name = filesystem.value("pool", std::string());
    own.targets = fs.targets;
    own.target_Bps = fs.target_Bps;
    own.servers = fs.servers;
    fs.pools = {own};
    const json pools = filesystem.value("pools", json::object());
    if (!pools.is_object())
        throw std::invalid_argument("platform.filesystem.pools: expected a mapping of pool names");
    for (const auto& [name, node] : pools.items()) {
        fs.pools.push_back(pool_of(node, name, fs));
        fs.pools.back().first = fs.pools[fs.pools.size() - 2].first + fs.pools[fs.pools.size() - 2].targets;
    }
    fs.osts = fs.pools.back().first + fs.pools.back().targets;
    fs.dom_max_bytes = filesystem.value("dom_max_bytes", uint64_t{0});
    if (fs.dom_max_bytes > 0) {
        fs.mdts = static_cast<int>(positive(filesystem.value("metadata_servers", json(nullptr)),
                                            "platform.filesystem.metadata_servers"));
        fs.mdt_Bps = positive(filesystem.value("mdt_mbs", json(nullptr)), "platform.filesystem.mdt_mbs") * MB;
    }
}

void apply_layout(const json& lustre, const json& config, FileSettings& s, const Platform& p)
{
    const FileSystem& fs = p.fs;
    LayoutComponent plain;
    plain.stripe_size = s.stripe_size;
    plain.stripe_count = s.stripe_count;
    if (lustre.contains("pool"))
        plain.pool = pool_index(lustre["pool"], fs, "lustre.pool");
    bool hand_set_plain = !config.contains("components") && sets_plain_layout(config);
    const json components = hand_set_plain ? json::array() : lustre.value("components", json::array());
    s.components.clear();
    if (!components.is_array())
        throw std::invalid_argument("lustre.components: expected a list of components");
    if (components.empty()) {
        plain.stripe_count = stripes_on(s.stripe_count, fs.pools[plain.pool], fs);
        s.components.push_back(plain);
    }
    uint64_t start = 0;
    for (size_t i = 0; i < components.size(); i++) {
        std::string path = "lustre.components[" + std::to_string(i) + "]";
        s.components.push_back(component_of(components[i], path, plain, start, fs));
        start = s.components.back().end;
    }
    if (s.components.back().end != UINT64_MAX)
        throw std::invalid_argument("lustre.components: the last component must end at eof");
    const LayoutComponent& last = s.components.back();
    if (!last.mdt) {
        s.stripe_count = last.stripe_count;
        s.stripe_size = last.stripe_size;
    }
}

}  // namespace iosim
