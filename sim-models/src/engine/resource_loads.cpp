#include "engine/resource_loads.hpp"

#include <algorithm>
#include <functional>
#include <utility>

namespace iosim {

std::vector<int> target_clients(const Platform& p, const Phase& phase)
{
    TargetClients listed;
    for (const Flow& f : phase.flows)
        if (f.to_target)
            listed.add(f.dst, f.src);
    std::vector<int> clients(static_cast<size_t>(storage_targets(p)));
    for (size_t t = 0; t < clients.size(); t++)
        clients[t] = listed.take(static_cast<int>(t));
    return clients;
}

// Interleaved streams cost a disk target seeks, but the loss levels off: the elevator and
// the OST's request queue merge what many clients send once there are enough of them (the
// shared-file runs of Sandia's RSIOPA tests hold their per-OST write rate from 24 to ~500
// clients on 8 OSTs). So the throughput falls from B towards f B, never below it.
double degraded_bandwidth(const Platform& p, int target, int clients)
{
    double f = p.fs.degradation_floor;
    return target_bandwidth(p, target) * (f + (1 - f) / (1 + p.fs.degradation * (std::max(1, clients) - 1)));
}

ResourceLoads LoadSummer::loads(const Platform& p, const Phase& phase)
{
    for (const Flow& f : phase.flows) {
        if (!f.to_target) {
            // A node's traffic to itself is a local copy (SimGrid's loopback), not its NIC's.
            if (f.src != f.dst) {
                mpi_out_.add(f.src, f.bytes);
                mpi_in_.add(f.dst, f.bytes);
            }
            continue;
        }
        node_out_.add(f.src, f.bytes);
        server_in_.add(server_of_target(p, f.dst), f.bytes);
        targets_.add(f.dst, {f.bytes, f.target_busy_s});
        clients_.add(f.dst, f.src);
    }
    ResourceLoads loads;
    auto into = [](std::vector<ResourceTotal>& out) {
        return [&out](int id, uint64_t bytes) { out.push_back({id, bytes}); };
    };
    mpi_out_.take(into(loads.mpi_out));
    mpi_in_.take(into(loads.mpi_in));
    node_out_.take(into(loads.node_out));
    server_in_.take(into(loads.server_in));
    targets_.take([&](int target, const TargetWork& work) {
        double bw = degraded_bandwidth(p, target, clients_.take(target));
        auto data = static_cast<double>(work.bytes);
        loads.targets.push_back({target, bw, data + work.busy_s * bw, data, target_bandwidth(p, target)});
    });
    return loads;
}

void TargetClients::add(int target, int client)
{
    if (static_cast<size_t>(target) >= clients_of_.size())
        clients_of_.resize(static_cast<size_t>(target) + 1);
    clients_of_[target].push_back(client);
}

int TargetClients::take(int target)
{
    if (static_cast<size_t>(target) >= clients_of_.size())
        return 0;
    std::vector<int>& clients = clients_of_[target];
    count_++;
    int n = 0;
    for (int c : clients) {
        auto at = static_cast<size_t>(c);
        if (at >= counted_.size())
            counted_.resize(at + 1, 0);
        if (counted_[at] != count_) {
            counted_[at] = count_;
            n++;
        }
    }
    clients.clear();
    return n;
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
    void reserve(size_t bytes) { key_.reserve(bytes); }
    std::string take() { return std::move(key_); }

private:
    std::string key_;
};

// Totals whose owners are interchangeable within a group (and groups among themselves):
// the sorted totals of each group, the groups sorted.
void put_grouped(KeyWriter& key, const std::vector<ResourceTotal>& totals, const std::function<int(int)>& group_of)
{
    std::vector<std::pair<int, uint64_t>> by_group;
    for (const auto& t : totals)
        by_group.emplace_back(group_of(t.id), t.bytes);
    std::sort(by_group.begin(), by_group.end());
    std::vector<std::vector<uint64_t>> groups;
    for (size_t i = 0; i < by_group.size(); i++) {
        if (i == 0 || by_group[i].first != by_group[i - 1].first)
            groups.emplace_back();
        groups.back().push_back(by_group[i].second);
    }
    std::sort(groups.begin(), groups.end());
    key.put(groups.size());
    for (const auto& g : groups)
        key.put_all(g);
}

void put_exact(KeyWriter& key, const std::vector<ResourceTotal>& totals)
{
    key.put(totals.size());
    for (const auto& t : totals) {
        key.put(t.id);
        key.put(t.bytes);
    }
}

}  // namespace

std::string symmetric_key(const Platform& p, const ResourceLoads& loads)
{
    KeyWriter key;
    key.reserve(16 * (loads.mpi_out.size() + loads.mpi_in.size() + loads.node_out.size() + loads.server_in.size() +
                      loads.targets.size()) + 64);
    auto one_group = [](int) { return 0; };
    // A NIC's up link carries both kinds of traffic: with both in one phase, keep node names.
    if (!loads.mpi_out.empty() && !loads.node_out.empty()) {
        key.put('x');
        put_exact(key, loads.mpi_out);
        put_exact(key, loads.node_out);
    } else {
        key.put('n');
        put_grouped(key, loads.mpi_out, one_group);
        put_grouped(key, loads.node_out, [&p](int node) {
            return p.routers.side == RouterSide::client ? router_of_node(p, node) : 0;
        });
    }
    put_grouped(key, loads.mpi_in, one_group);
    put_grouped(key, loads.server_in, [&p](int server) {
        return p.routers.side == RouterSide::server ? router_of_server(p, server) : 0;
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
