#include <simgrid/s4u.hpp>

#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backend.hpp"

namespace sg4 = simgrid::s4u;

namespace iosim {

namespace {

// A star: every host reaches the centre through its own links. A client node has two hosts
// sharing its NIC: one for storage traffic (through the routers, when they sit on the client
// side, and the storage fabric) and one for MPI traffic (through the MPI fabric). A target
// host carries its OST as a disk; its route goes through its server's link (and the routers
// when they sit on the server side).
class SimgridBackend : public Backend {
public:
    SimgridBackend(const Platform& p, int nodes, bool coupled) : p_(p), coupled_(coupled) { build(nodes); }

    double time_flows(const Phase& phase) override
    {
        set_target_bandwidths(phase);
        return coupled_ ? coupled_flows(phase) : decoupled_flows(phase);
    }

private:
    // Every flow its own transfer through its whole path, alongside its OST's work.
    double coupled_flows(const Phase& phase)
    {
        double start = sg4::Engine::get_clock();
        std::vector<sg4::CommPtr> comms;
        std::vector<sg4::IoPtr> ios;
        for (const Flow& f : phase.flows) {
            sg4::Host* src = storage_host_[f.src];
            if (!f.to_target) {
                if (f.bytes > 0)
                    comms.push_back(sg4::Comm::sendto_async(mpi_host_[f.src], mpi_host_[f.dst], f.bytes));
                continue;
            }
            if (f.bytes > 0)
                comms.push_back(sg4::Comm::sendto_async(src, target_host_[f.dst], f.bytes));
            // The OST's own work runs alongside the transfer: the data plus its per-RPC and
            // lock costs expressed as bytes at the OST's current rate.
            double busy_bytes = f.target_busy_s * disks_[f.dst]->get_write_bandwidth();
            auto io_bytes = static_cast<sg_size_t>(static_cast<double>(f.bytes) + busy_bytes);
            if (io_bytes > 0)
                ios.push_back(disks_[f.dst]->write_async(io_bytes));
        }
        for (auto& c : comms)
            c->wait();
        for (auto& io : ios)
            io->wait();
        return sg4::Engine::get_clock() - start;
    }

    // For speed: each resource sees the total it must carry, all at once: one transfer per
    // client node (its NIC, routers, fabric), one per server (its link and routers), one I/O
    // per OST. Every bottleneck is kept; what is lost is a slow node holding back an OST that
    // would otherwise serve another node faster (the coupled mode keeps that, at a cost).
    double decoupled_flows(const Phase& phase)
    {
        std::map<std::pair<int, int>, uint64_t> node_to_node;
        std::map<int, uint64_t> node_out, server_in;
        std::map<int, double> target_bytes;
        for (const Flow& f : phase.flows) {
            if (!f.to_target) {
                node_to_node[{f.src, f.dst}] += f.bytes;
                continue;
            }
            node_out[f.src] += f.bytes;
            server_in[server_of_target(p_, f.dst)] += f.bytes;
            target_bytes[f.dst] += static_cast<double>(f.bytes) + f.target_busy_s * disks_[f.dst]->get_write_bandwidth();
        }
        double start = sg4::Engine::get_clock();
        std::vector<sg4::ActivityPtr> all;
        for (auto& [pair, bytes] : node_to_node)
            all.push_back(sg4::Comm::sendto_async(mpi_host_[pair.first], mpi_host_[pair.second], bytes));
        for (auto& [node, bytes] : node_out)
            all.push_back(sg4::Comm::sendto_async(storage_host_[node], hub_, bytes));
        for (auto& [server, bytes] : server_in)
            all.push_back(sg4::Comm::sendto_async(hub_, server_host_[server], bytes));
        for (auto& [target, bytes] : target_bytes)
            if (bytes >= 1)
                all.push_back(disks_[target]->write_async(static_cast<sg_size_t>(bytes)));
        for (auto& a : all)
            a->wait();
        return sg4::Engine::get_clock() - start;
    }

    sg4::Link* link(const std::string& name, double bw)
    {
        return zone_->create_link(name, bw)->set_latency(0)->seal();
    }

    void route(sg4::Host* h, std::vector<sg4::Link*> up, std::vector<sg4::Link*> down)
    {
        std::vector<sg4::LinkInRoute> u(up.begin(), up.end()), d(down.begin(), down.end());
        zone_->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, u, false);
        zone_->add_route(nullptr, h->get_netpoint(), nullptr, nullptr, d, false);
    }

    void build(int nodes)
    {
        zone_ = sg4::create_star_zone("storage");
        sg4::Link* mpi_fabric = link("mpi-fabric", p_.mpi_fabric_Bps);
        sg4::Link* storage_fabric = link("storage-fabric", p_.storage_fabric_Bps);
        std::vector<sg4::Link*> routers;
        for (int r = 0; r < p_.routers; r++)
            routers.push_back(link("router-" + std::to_string(r), p_.router_Bps));
        for (int n = 0; n < nodes; n++) {
            std::string id = std::to_string(n);
            sg4::Link* up = link("nic-up-" + id, p_.nic_Bps);
            sg4::Link* down = link("nic-down-" + id, p_.nic_Bps);
            storage_host_.push_back(zone_->create_host("node-" + id, 1e9)->seal());
            mpi_host_.push_back(zone_->create_host("mpi-" + id, 1e9)->seal());
            std::vector<sg4::Link*> storage_up{up};
            if (p_.router_side == RouterSide::client)
                storage_up.push_back(routers[std::min<int>(p_.routers - 1, n / p_.nodes_per_router)]);
            storage_up.push_back(storage_fabric);
            route(storage_host_.back(), storage_up, {down});
            route(mpi_host_.back(), {up, mpi_fabric}, {down});
        }
        std::vector<sg4::Link*> servers;
        hub_ = zone_->create_host("hub", 1e9)->seal();
        route(hub_, {}, {});
        for (int s = 0; s < p_.servers; s++) {
            servers.push_back(link("server-" + std::to_string(s), p_.server_Bps));
            server_host_.push_back(zone_->create_host("server-" + std::to_string(s), 1e9)->seal());
            std::vector<sg4::Link*> down;
            if (p_.router_side == RouterSide::server)
                down.push_back(routers[static_cast<size_t>(s) * p_.routers / p_.servers]);
            down.push_back(servers.back());
            route(server_host_.back(), {servers.back()}, down);
        }
        for (int t = 0; t < p_.targets; t++) {
            sg4::Host* h = zone_->create_host("ost-" + std::to_string(t), 1e9);
            disks_.push_back(h->create_disk("ost-disk-" + std::to_string(t), p_.target_Bps, p_.target_Bps)->seal());
            h->seal();
            int server = server_of_target(p_, t);
            std::vector<sg4::Link*> down;
            if (p_.router_side == RouterSide::server)
                down.push_back(routers[static_cast<size_t>(server) * p_.routers / p_.servers]);
            down.push_back(servers[server]);
            route(h, {servers[server]}, down);
            target_host_.push_back(h);
        }
        zone_->seal();
    }

    // Degradation under concurrency: a target written by n client nodes this phase delivers
    // B / (1 + d (n - 1)) in total (ranks of one node share its Lustre client).
    void set_target_bandwidths(const Phase& phase)
    {
        std::set<std::pair<int, int>> clients;
        streams_.assign(p_.targets, 0);
        for (const Flow& f : phase.flows)
            if (f.to_target && clients.emplace(f.dst, f.src).second)
                streams_[f.dst]++;
        for (int t = 0; t < p_.targets; t++) {
            double n = std::max(1, streams_[t]);
            double bw = p_.target_Bps / (1 + p_.degradation * (n - 1));
            if (bw != disks_[t]->get_write_bandwidth())
                disks_[t]->set_write_bandwidth(bw);
        }
    }

    const Platform& p_;
    bool coupled_;
    sg4::NetZone* zone_ = nullptr;
    sg4::Host* hub_ = nullptr;
    std::vector<sg4::Host*> storage_host_, mpi_host_, target_host_, server_host_;
    std::vector<sg4::Disk*> disks_;
    std::vector<int> streams_;
};

}  // namespace

void run_simgrid(const Platform& p, int nodes, bool coupled, const std::function<void(Backend&)>& body)
{
    int argc = 2;
    char name[] = "iosim";
    char quiet[] = "--log=root.threshold:error";
    char* argv[] = {name, quiet, nullptr};
    sg4::Engine engine(&argc, argv);
    sg4::Engine::set_config("network/model:CM02");
    sg4::Engine::set_config("network/crosstraffic:0");
    sg4::Engine::set_config("network/TCP-gamma:0");
    sg4::Engine::set_config("network/loopback-bw:1e15");
    SimgridBackend backend(p, std::max(1, nodes), coupled);
    // An exception must not unwind through SimGrid's actor context: carry it out instead.
    std::exception_ptr failure;
    sg4::Actor::create("planner", sg4::Host::by_name("node-0"), [&backend, &body, &failure]() {
        try {
            body(backend);
        } catch (...) {
            failure = std::current_exception();
        }
    });
    engine.run();
    if (failure)
        std::rethrow_exception(failure);
}

}  // namespace iosim
