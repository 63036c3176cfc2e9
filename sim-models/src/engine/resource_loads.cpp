#include "engine/resource_loads.hpp"

#include <algorithm>
#include <functional>
#include <utility>

namespace iosim {

namespace {

// (target, client node) pairs of the phase, sorted, each once.
std::vector<std::pair<int, int>> target_client_pairs(const Phase& phase)
{
    std::vector<std::pair<int, int>> pairs;
    for (const Flow& f : phase.flows)
        if (f.to_target)
            pairs.emplace_back(f.dst, f.src);
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return pairs;
}

// Amounts summed per id, in id order; the amounts of one id are added in the order given.
template <typename Amount>
std::vector<std::pair<int, Amount>> sum_by_id(std::vector<std::pair<int, Amount>> items)
{
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<int, Amount>> sums;
    for (const auto& [id, amount] : items) {
        if (!sums.empty() && sums.back().first == id)
            sums.back().second += amount;
        else
            sums.emplace_back(id, amount);
    }
    return sums;
}

std::vector<ResourceTotal> totals(std::vector<std::pair<int, uint64_t>> items)
{
    std::vector<ResourceTotal> out;
    for (const auto& [id, bytes] : sum_by_id(std::move(items)))
        out.push_back({id, bytes});
    return out;
}

}  // namespace

std::vector<int> target_clients(const Platform& p, const Phase& phase)
{
    std::vector<int> clients(storage_targets(p), 0);
    for (const auto& pair : target_client_pairs(phase))
        clients[pair.first]++;
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

// Sums by sorting what the flows carry, not by arrays over every node or OST: a phase of a
// huge run often has a handful of flows, and there may be millions of such phases.
ResourceLoads resource_loads(const Platform& p, const Phase& phase)
{
    std::vector<std::pair<int, uint64_t>> mpi_out, mpi_in, node_out, server_in, target_bytes;
    std::vector<std::pair<int, double>> target_busy_s;
    for (const Flow& f : phase.flows) {
        if (!f.to_target) {
            // A node's traffic to itself is a local copy (SimGrid's loopback), not its NIC's.
            if (f.src != f.dst) {
                mpi_out.emplace_back(f.src, f.bytes);
                mpi_in.emplace_back(f.dst, f.bytes);
            }
            continue;
        }
        node_out.emplace_back(f.src, f.bytes);
        server_in.emplace_back(server_of_target(p, f.dst), f.bytes);
        target_bytes.emplace_back(f.dst, f.bytes);
        target_busy_s.emplace_back(f.dst, f.target_busy_s);
    }
    ResourceLoads loads;
    loads.mpi_out = totals(std::move(mpi_out));
    loads.mpi_in = totals(std::move(mpi_in));
    loads.node_out = totals(std::move(node_out));
    loads.server_in = totals(std::move(server_in));
    auto bytes = sum_by_id(std::move(target_bytes));
    auto busy = sum_by_id(std::move(target_busy_s));
    auto clients = target_client_pairs(phase);
    size_t c = 0;
    for (size_t i = 0; i < bytes.size(); i++) {
        int target = bytes[i].first, n = 0;
        for (; c < clients.size() && clients[c].first <= target; c++)
            n += clients[c].first == target;
        double bw = degraded_bandwidth(p, target, n);
        auto data = static_cast<double>(bytes[i].second);
        loads.targets.push_back({target, bw, data + busy[i].second * bw, data, target_bandwidth(p, target)});
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
