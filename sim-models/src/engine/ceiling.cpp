#include "engine/ceiling.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace iosim {

namespace {

constexpr double MB = 1e6;

// Bytes per member of a class of resources, and each member's capacity.
struct Loads {
    std::map<int, double> bytes;
    void add(int member, double b)
    {
        if (b > 0)
            bytes[member] += b;
    }
};

// payload / max(bytes / capacity): the most the payload could go through these members.
void add(Ceiling& c, const char* resource, const Loads& loads, double payload,
         const std::function<double(int)>& capacity)
{
    double busiest_s = 0;
    for (const auto& [member, bytes] : loads.bytes) {
        double cap = capacity(member);
        if (cap <= 0)
            return;  // no limit
        busiest_s = std::max(busiest_s, bytes / cap);
    }
    if (busiest_s > 0)
        c.terms.push_back({resource, static_cast<int>(loads.bytes.size()), payload / busiest_s});
}

Loads loads_of(const std::vector<uint64_t>& bytes, int first = 0, int count = -1)
{
    Loads out;
    int end = count < 0 ? static_cast<int>(bytes.size()) : std::min<int>(first + count, bytes.size());
    for (int i = first; i < end; i++)
        out.add(i, static_cast<double>(bytes[i]));
    return out;
}

// The client side: each writing node's Lustre client, each writing process's copy.
void add_client(Ceiling& c, const Platform& p, const Loads& nodes, const Loads& processes, double payload)
{
    add(c, "client nodes", nodes, payload, [&p](int) { return p.cache.node_write_Bps; });
    add(c, "client processes", processes, payload, [&p](int) { return p.cache.process_write_Bps; });
}

// The storage side: targets, their servers, the routers on the way, the fabric, the NICs.
void add_storage(Ceiling& c, const Platform& p, const Loads& targets, const Loads& servers, const Loads& nodes,
                 double payload)
{
    Loads osts, mdts;
    for (const auto& [t, bytes] : targets.bytes)
        (t < p.fs.osts ? osts : mdts).add(t, bytes);
    add(c, "OSTs", osts, payload, [&p](int t) { return target_bandwidth(p, t); });
    add(c, "MDTs", mdts, payload, [&p](int t) { return target_bandwidth(p, t); });
    add(c, "server links", servers, payload, [&p](int) { return p.fs.server_Bps; });
    Loads routers;
    if (p.routers.side == RouterSide::server)
        for (const auto& [s, bytes] : servers.bytes)
            routers.add(router_of_server(p, s), bytes);
    else if (p.routers.side == RouterSide::client)
        for (const auto& [n, bytes] : nodes.bytes)
            routers.add(router_of_node(p, n), bytes);
    add(c, "routers", routers, payload, [&p](int) { return p.routers.Bps; });
    Loads fabric;
    for (const auto& [n, bytes] : nodes.bytes)
        fabric.add(0, bytes);
    add(c, "storage fabric", fabric, payload, [&p](int) { return p.network.storage_fabric_Bps; });
    add(c, "client NICs", nodes, payload, [&p](int) { return p.compute.nic_Bps; });
}

void settle(Ceiling& c)
{
    for (const auto& t : c.terms)
        if (t.Bps < c.Bps) {
            c.Bps = t.Bps;
            c.bound_by = t.resource;
        }
}

// `total` bytes spread evenly over members first, first + 1, ... first + n - 1.
Loads even(int n, double total, int first = 0)
{
    Loads out;
    for (int i = 0; i < n; i++)
        out.add(first + i, total / n);
    return out;
}

}  // namespace

Ceiling run_ceiling(const Platform& p, const Breakdown& bd, bool storage_on_path)
{
    Ceiling c;
    auto payload = static_cast<double>(bd.payload_bytes);
    Loads nodes = loads_of(bd.bytes_per_node);
    if (payload > 0 && storage_on_path)
        add_storage(c, p, loads_of(bd.bytes_per_target), loads_of(bd.bytes_per_server), nodes, payload);
    if (payload > 0)
        add_client(c, p, nodes, loads_of(bd.bytes_per_process), payload);
    settle(c);
    return c;
}

Ceiling best_ceiling(const Platform& p, int nodes, int ranks, int stripes, bool storage_on_path)
{
    // `stripes` targets of the pool where they carry the most, the payload spread evenly.
    const Pool* best = &p.fs.pools.front();
    auto carries = [stripes](const Pool& pool) { return std::min(stripes, pool.targets) * pool.target_Bps; };
    for (const Pool& pool : p.fs.pools)
        if (carries(pool) > carries(*best))
            best = &pool;
    constexpr double payload = 1.0;
    Ceiling c;
    Loads writers = even(nodes, payload);
    if (storage_on_path) {
        Loads targets = even(std::min(stripes, best->targets), payload, best->first);
        Loads servers;
        for (const auto& [t, bytes] : targets.bytes)
            servers.add(server_of_target(p, t), bytes);
        add_storage(c, p, targets, servers, writers, payload);
    }
    add_client(c, p, writers, even(ranks, payload), payload);
    settle(c);
    return c;
}

nlohmann::json ceiling_json(const Ceiling& c)
{
    nlohmann::json resources = nlohmann::json::object();
    for (const auto& t : c.terms)
        resources[t.resource] = {{"count", t.count}, {"mbs", t.Bps / MB}};
    bool bounded = c.Bps < std::numeric_limits<double>::infinity();
    return {{"mbs", bounded ? nlohmann::json(c.Bps / MB) : nlohmann::json(nullptr)},
            {"bound_by", bounded ? c.bound_by : "nothing: the writes end in the client cache"},
            {"resources", resources}};
}

}  // namespace iosim
