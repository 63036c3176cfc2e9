#include "ceiling.hpp"

#include <algorithm>
#include <set>

namespace iosim {

namespace {

constexpr double MB = 1e6;

int count(const std::vector<bool>& flags)
{
    return static_cast<int>(std::count(flags.begin(), flags.end(), true));
}

void add(Ceiling& c, const char* resource, int n, double each_Bps)
{
    if (n > 0 && each_Bps > 0)
        c.terms.push_back({resource, n, n * each_Bps});
}

void add_total(Ceiling& c, const char* resource, int n, double total_Bps)
{
    if (n > 0 && total_Bps > 0)
        c.terms.push_back({resource, n, total_Bps});
}

// The client side: each writing node's Lustre client, each writing process's copy.
void add_client(Ceiling& c, const Platform& p, int nodes, int processes)
{
    add(c, "client nodes", nodes, p.cache.node_write_Bps);
    add(c, "client processes", processes, p.cache.process_write_Bps);
}

// Routers the data crosses: those of the servers written (server side), or of the writing
// nodes (client side, BG/P I/O nodes).
int routers_crossed(const Platform& p, const std::vector<int>& servers, const std::vector<int>& nodes)
{
    std::set<int> routers;
    if (p.routers.side == RouterSide::server)
        for (int s : servers)
            routers.insert(router_of_server(p, s));
    else if (p.routers.side == RouterSide::client)
        for (int n : nodes)
            routers.insert(router_of_node(p, n));
    return static_cast<int>(routers.size());
}

void add_storage(Ceiling& c, const Platform& p, const std::vector<int>& targets, const std::vector<int>& servers,
                 const std::vector<int>& nodes)
{
    double targets_Bps = 0;
    for (int t : targets)
        targets_Bps += target_bandwidth(p, t);
    add_total(c, "OSTs", static_cast<int>(targets.size()), targets_Bps);
    add(c, "OSS links", static_cast<int>(servers.size()), p.fs.server_Bps);
    add(c, "routers", routers_crossed(p, servers, nodes), p.routers.Bps);
    add(c, "storage fabric", 1, p.network.storage_fabric_Bps);
    add(c, "client NICs", static_cast<int>(nodes.size()), p.compute.nic_Bps);
}

void settle(Ceiling& c)
{
    for (const auto& t : c.terms)
        if (t.Bps < c.Bps) {
            c.Bps = t.Bps;
            c.bound_by = t.resource;
        }
}

std::vector<int> indices(const std::vector<bool>& flags)
{
    std::vector<int> out;
    for (size_t i = 0; i < flags.size(); i++)
        if (flags[i])
            out.push_back(static_cast<int>(i));
    return out;
}

std::vector<int> written(const std::vector<uint64_t>& bytes)
{
    std::vector<int> out;
    for (size_t i = 0; i < bytes.size(); i++)
        if (bytes[i] > 0)
            out.push_back(static_cast<int>(i));
    return out;
}

std::vector<int> first(int n)
{
    std::vector<int> out(static_cast<size_t>(std::max(0, n)));
    for (int i = 0; i < n; i++)
        out[i] = i;
    return out;
}

}  // namespace

Ceiling run_ceiling(const Platform& p, const Breakdown& bd, bool storage_on_path)
{
    Ceiling c;
    std::vector<int> nodes = indices(bd.storage_nodes);
    if (storage_on_path)
        add_storage(c, p, written(bd.bytes_per_target), written(bd.bytes_per_server), nodes);
    add_client(c, p, static_cast<int>(nodes.size()), count(bd.storage_processes));
    settle(c);
    return c;
}

Ceiling best_ceiling(const Platform& p, int nodes, int ranks, int stripes, bool storage_on_path)
{
    Ceiling c;
    if (storage_on_path) {
        std::vector<int> targets = first(std::min(stripes, p.fs.targets));
        std::set<int> servers;
        for (int t : targets)
            servers.insert(server_of_target(p, t));
        add_storage(c, p, targets, {servers.begin(), servers.end()}, first(nodes));
    }
    add_client(c, p, nodes, ranks);
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
