#include "engine/binding.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace iosim {

namespace {

constexpr std::array<const char*, static_cast<size_t>(Mechanism::count)> names = {
    "OSTs (bandwidth)",
    "OSTs (interleaved client streams)",
    "OSTs (request service)",
    "OSS links",
    "routers",
    "storage fabric",
    "client NICs",
    "MPI fabric (shuffle)",
    "client processes (cache copy)",
    "client nodes (Lustre client)",
    "extent-lock revocation waits",
    "client range locks (a node's calls sharing pages)",
    "open (create, open, metadata reads)",
    "close (metadata writes, closing steps)",
    "collective steps and fixed costs",
};

size_t index(Mechanism m)
{
    return static_cast<size_t>(m);
}

template <typename Totals, typename Group>
double busiest_group(const Totals& totals, Group group_of, double capacity)
{
    std::map<int, double> sums;
    for (const auto& t : totals)
        sums[group_of(t.id)] += static_cast<double>(t.bytes);
    double most = 0;
    for (const auto& [group, bytes] : sums)
        most = std::max(most, bytes);
    return capacity > 0 ? most / capacity : 0;
}

// Per client node, what its NIC carries each way: storage and MPI traffic out, MPI traffic in.
double busiest_nic(const ResourceLoads& loads, double nic_Bps)
{
    std::map<int, double> up, down;
    for (const auto& t : loads.node_out)
        up[t.id] += static_cast<double>(t.bytes);
    for (const auto& t : loads.mpi_out)
        up[t.id] += static_cast<double>(t.bytes);
    for (const auto& t : loads.mpi_in)
        down[t.id] += static_cast<double>(t.bytes);
    double most = 0;
    for (const auto& side : {up, down})
        for (const auto& [node, bytes] : side)
            most = std::max(most, bytes);
    return most / nic_Bps;
}

double total(const std::vector<ResourceTotal>& totals)
{
    return std::accumulate(totals.begin(), totals.end(), 0.0,
                           [](double sum, const ResourceTotal& t) { return sum + static_cast<double>(t.bytes); });
}

}  // namespace

const char* mechanism_name(Mechanism m)
{
    return names[index(m)];
}

PhaseBinding binding_of(const Platform& p, const ResourceLoads& loads)
{
    // The least time each class of resource needs for its busiest member's load.
    std::array<double, static_cast<size_t>(Mechanism::count)> bound{};
    const TargetLoad* busiest = nullptr;
    double target_s = 0;
    for (const auto& t : loads.targets) {
        double seconds = t.bytes / t.bandwidth;
        if (seconds > target_s) {
            target_s = seconds;
            busiest = &t;
        }
    }
    bound[index(Mechanism::target_bandwidth)] = target_s;
    bound[index(Mechanism::servers)] = busiest_group(loads.server_in, [](int s) { return s; }, p.fs.server_Bps);
    if (p.routers.side == RouterSide::server)
        bound[index(Mechanism::routers)] =
            busiest_group(loads.server_in, [&p](int s) { return router_of_server(p, s); }, p.routers.Bps);
    else if (p.routers.side == RouterSide::client)
        bound[index(Mechanism::routers)] =
            busiest_group(loads.node_out, [&p](int n) { return router_of_node(p, n); }, p.routers.Bps);
    bound[index(Mechanism::storage_fabric)] = total(loads.node_out) / p.network.storage_fabric_Bps;
    bound[index(Mechanism::client_nics)] = busiest_nic(loads, p.compute.nic_Bps);
    bound[index(Mechanism::mpi_fabric)] = total(loads.mpi_out) / p.network.mpi_fabric_Bps;
    auto binding = static_cast<Mechanism>(std::max_element(bound.begin(), bound.end()) - bound.begin());
    PhaseBinding out;
    if (binding != Mechanism::target_bandwidth || !busiest) {
        out.share[index(binding)] = 1;
        return out;
    }
    // The busiest target's time: its data at full bandwidth, the loss to interleaved streams,
    // and its per-request service (expressed in its loads as bytes at its rate).
    double full = busiest->full_bandwidth;
    double data_s = busiest->data_bytes / busiest->bandwidth;
    out.share[index(Mechanism::target_bandwidth)] = busiest->data_bytes / full / target_s;
    out.share[index(Mechanism::target_contention)] = std::max(0.0, data_s - busiest->data_bytes / full) / target_s;
    out.share[index(Mechanism::target_service)] = std::max(0.0, target_s - data_s) / target_s;
    return out;
}

void TimeAttribution::charge(Mechanism m, double seconds)
{
    seconds_[index(m)] += seconds;
}

void TimeAttribution::charge(const PhaseBinding& binding, double seconds)
{
    for (size_t i = 0; i < seconds_.size(); i++)
        seconds_[i] += binding.share[i] * seconds;
}

TimeAttribution TimeAttribution::since(const TimeAttribution& earlier) const
{
    TimeAttribution d;
    for (size_t i = 0; i < seconds_.size(); i++)
        d.seconds_[i] = seconds_[i] - earlier.seconds_[i];
    return d;
}

void TimeAttribution::add(const TimeAttribution& other, double times)
{
    for (size_t i = 0; i < seconds_.size(); i++)
        seconds_[i] += other.seconds_[i] * times;
}

void TimeAttribution::charge_fixed(const std::string& label, double seconds)
{
    if (label == "compute" || seconds <= 0)
        return;
    charge(label == "open" ? Mechanism::open : label == "close" ? Mechanism::close : Mechanism::fixed, seconds);
}

double TimeAttribution::total() const
{
    return std::accumulate(seconds_.begin(), seconds_.end(), 0.0);
}

Mechanism TimeAttribution::largest() const
{
    return static_cast<Mechanism>(std::max_element(seconds_.begin(), seconds_.end()) - seconds_.begin());
}

nlohmann::json TimeAttribution::to_json() const
{
    nlohmann::json out = nlohmann::json::object();
    for (size_t i = 0; i < seconds_.size(); i++)
        if (seconds_[i] > 0)
            out[names[i]] = seconds_[i];
    return out;
}

}  // namespace iosim
