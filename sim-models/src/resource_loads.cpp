#include "resource_loads.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <utility>

namespace iosim {

std::vector<int> target_clients(const Platform& p, const Phase& phase)
{
    std::set<std::pair<int, int>> seen;
    std::vector<int> clients(p.targets, 0);
    for (const Flow& f : phase.flows)
        if (f.to_target && seen.emplace(f.dst, f.src).second)
            clients[f.dst]++;
    return clients;
}

double degraded_bandwidth(const Platform& p, int clients)
{
    return p.target_Bps / (1 + p.degradation * (std::max(1, clients) - 1));
}

ResourceLoads resource_loads(const Platform& p, const Phase& phase)
{
    std::map<std::pair<int, int>, uint64_t> node_to_node;
    std::map<int, uint64_t> node_out, server_in;
    std::map<int, double> target_busy_s;
    std::map<int, uint64_t> target_bytes;
    for (const Flow& f : phase.flows) {
        if (!f.to_target) {
            node_to_node[{f.src, f.dst}] += f.bytes;
            continue;
        }
        node_out[f.src] += f.bytes;
        server_in[server_of_target(p, f.dst)] += f.bytes;
        target_bytes[f.dst] += f.bytes;
        target_busy_s[f.dst] += f.target_busy_s;
    }
    ResourceLoads loads;
    for (auto& [pair, bytes] : node_to_node)
        loads.node_to_node.push_back({pair.first, pair.second, bytes});
    for (auto& [node, bytes] : node_out)
        loads.node_out.push_back({node, bytes});
    for (auto& [server, bytes] : server_in)
        loads.server_in.push_back({server, bytes});
    std::vector<int> clients = target_clients(p, phase);
    for (auto& [target, bytes] : target_bytes) {
        double bw = degraded_bandwidth(p, clients[target]);
        loads.targets.push_back({target, bw, static_cast<double>(bytes) + target_busy_s[target] * bw});
    }
    return loads;
}

namespace {

class KeyWriter {
public:
    template <typename T>
    void put(T value)
    {
        key_.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
    void put_all(const std::vector<uint64_t>& values)
    {
        put(values.size());
        for (uint64_t v : values)
            put(v);
    }
    std::string take() { return std::move(key_); }

private:
    std::string key_;
};

// Totals whose owners are interchangeable within a group (and groups among themselves):
// the sorted totals of each group, the groups sorted.
void put_grouped(KeyWriter& key, const std::vector<ResourceTotal>& totals, const std::function<int(int)>& group_of)
{
    std::map<int, std::vector<uint64_t>> groups;
    for (const auto& t : totals)
        groups[group_of(t.id)].push_back(t.bytes);
    std::vector<std::vector<uint64_t>> sorted;
    for (auto& [g, bytes] : groups) {
        std::sort(bytes.begin(), bytes.end());
        sorted.push_back(std::move(bytes));
    }
    std::sort(sorted.begin(), sorted.end());
    key.put(sorted.size());
    for (const auto& g : sorted)
        key.put_all(g);
}

// Sources and destinations renamed apart: sources by the sorted sizes they send, destinations
// by the sorted (source, size) pairs they receive; ties keep their original order. Any
// renaming gives a key of an isomorphic graph; this one makes rotations of a pattern collide.
void put_node_to_node(KeyWriter& key, const std::vector<NodeToNode>& edges)
{
    std::map<int, std::vector<uint64_t>> sent;
    for (const auto& e : edges)
        sent[e.src].push_back(e.bytes);
    std::vector<std::pair<std::vector<uint64_t>, int>> sources;
    for (auto& [src, sizes] : sent) {
        std::sort(sizes.begin(), sizes.end());
        sources.emplace_back(std::move(sizes), src);
    }
    std::sort(sources.begin(), sources.end());
    std::map<int, int> src_name;
    for (const auto& s : sources)
        src_name.emplace(s.second, static_cast<int>(src_name.size()));
    std::map<int, std::vector<std::pair<int, uint64_t>>> received;
    for (const auto& e : edges)
        received[e.dst].emplace_back(src_name[e.src], e.bytes);
    std::vector<std::pair<std::vector<std::pair<int, uint64_t>>, int>> dests;
    for (auto& [dst, in] : received) {
        std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) {
            return std::tie(a.second, a.first) < std::tie(b.second, b.first);
        });
        dests.emplace_back(std::move(in), dst);
    }
    std::sort(dests.begin(), dests.end());
    key.put(dests.size());
    for (const auto& d : dests) {
        key.put(d.first.size());
        for (const auto& [src, bytes] : d.first) {
            key.put(src);
            key.put(bytes);
        }
    }
}

void put_exact(KeyWriter& key, const ResourceLoads& loads)
{
    key.put(loads.node_to_node.size());
    for (const auto& e : loads.node_to_node) {
        key.put(e.src);
        key.put(e.dst);
        key.put(e.bytes);
    }
    key.put(loads.node_out.size());
    for (const auto& t : loads.node_out) {
        key.put(t.id);
        key.put(t.bytes);
    }
}

}  // namespace

std::string symmetric_key(const Platform& p, const ResourceLoads& loads)
{
    KeyWriter key;
    // A NIC's up link carries both kinds of traffic: with both in one phase, keep node names.
    bool loopback = std::any_of(loads.node_to_node.begin(), loads.node_to_node.end(),
                                [](const NodeToNode& e) { return e.src == e.dst; });
    if (loopback || (!loads.node_to_node.empty() && !loads.node_out.empty())) {
        key.put('x');
        put_exact(key, loads);
    } else {
        key.put('n');
        put_node_to_node(key, loads.node_to_node);
        put_grouped(key, loads.node_out, [&p](int node) {
            return p.router_side == RouterSide::client ? router_of_node(p, node) : 0;
        });
    }
    put_grouped(key, loads.server_in, [&p](int server) {
        return p.router_side == RouterSide::server ? router_of_server(p, server) : 0;
    });
    std::vector<std::pair<double, double>> targets;
    for (const auto& t : loads.targets)
        if (t.bytes >= 1)
            targets.emplace_back(t.bandwidth, t.bytes);
    std::sort(targets.begin(), targets.end());
    key.put(targets.size());
    for (const auto& [bw, bytes] : targets) {
        key.put(bw);
        key.put(bytes);
    }
    return key.take();
}

}  // namespace iosim
