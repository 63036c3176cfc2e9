#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include "engine/backend.hpp"

namespace sg4 = simgrid::s4u;

namespace iosim {

namespace {

// Max-min sharing (SimGrid's CM02 model without latency) of one link of `shared_Bps` by
// transfers that each cross one other link of `own_Bps` alone: all in flight get the same
// rate, min(own, shared / in flight), so they end smallest first. Seconds until the last ends.
double one_shared_link_s(const std::vector<ResourceTotal>& transfers, double own_Bps, double shared_Bps)
{
    std::vector<uint64_t> bytes;
    for (const auto& t : transfers)
        if (t.bytes > 0)
            bytes.push_back(t.bytes);
    std::sort(bytes.begin(), bytes.end());
    double seconds = 0;
    uint64_t sent = 0;
    for (size_t i = 0; i < bytes.size(); i++) {
        double rate = std::min(own_Bps, shared_Bps / static_cast<double>(bytes.size() - i));
        seconds += static_cast<double>(bytes[i] - sent) / rate;
        sent = bytes[i];
    }
    return seconds;
}

// A star: every host reaches the centre through its own links. A client node has two hosts
// sharing its NIC: one for storage traffic (through the routers, when they sit on the client
// side, and the storage fabric) and one for MPI traffic (through the MPI fabric). A target
// host carries its OST as a disk; its route goes through its server's link (and the routers
// when they sit on the server side).
class SimgridBackend : public Backend {
public:
    SimgridBackend(const Platform& p, int nodes) : p_(p) { build(nodes); }

    double time_flows(const Phase& phase) override
    {
        return in_own_actor([this, &phase]() {
            std::vector<int> clients = target_clients(p_, phase);
            for (int t = 0; t < storage_targets(p_); t++)
                set_target_bandwidth(t, degraded_bandwidth(p_, t, clients[t]));
            return coupled_flows(phase);
        });
    }

    // What crosses shared links (a NIC's up link, the fabrics, routers) is timed by
    // shared_links_s(); a resource that no other transfer of the loads reaches (an OST's disk, a
    // server's link unless server-side routers sit above it, a NIC's down link) takes its bytes
    // over its bandwidth: SimGrid's solver costs each completion a pass over every transfer in
    // flight, so a phase's cost grew with the square of all its resources.
    double time_loads(const ResourceLoads& loads) override
    {
        return std::max(lone_resources_s(loads), shared_links_s(loads));
    }

private:
    // SimGrid 3.32 keeps every disk I/O in its issuing actor's activity list until the actor
    // ends, and scans that list whenever a wait ends: a phase runs in an actor of its own.
    double in_own_actor(const std::function<double()>& timing)
    {
        if (before_clock_moves)
            before_clock_moves();
        double seconds = 0;
        sg4::Actor::create("phase", hub_, [&timing, &seconds]() { seconds = timing(); })->join();
        return seconds;
    }

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

    // For speed: each resource sees the total it must carry, all at once: per client node one
    // transfer of what it sends to other nodes (its NIC, the MPI fabric), one of what it
    // receives, one of what it sends to storage (its NIC, routers, storage fabric); one transfer
    // per server (its link and routers), one I/O per OST. Every bottleneck is kept; what is
    // lost is a slow node holding back an OST that would otherwise serve another node faster
    // (the coupled mode keeps that, at a cost). The transfers that share a link, through SimGrid:
    double shared_flows(const ResourceLoads& loads)
    {
        double start = sg4::Engine::get_clock();
        std::vector<sg4::ActivityPtr> all;
        for (const auto& n : loads.mpi_out)
            all.push_back(sg4::Comm::sendto_async(mpi_host_[n.id], hub_, n.bytes));
        for (const auto& n : loads.node_out)
            all.push_back(sg4::Comm::sendto_async(storage_host_[n.id], hub_, n.bytes));
        if (routers_below_servers())
            for (const auto& s : loads.server_in)
                all.push_back(sg4::Comm::sendto_async(hub_, server_host_[s.id], s.bytes));
        for (auto& a : all)
            a->wait();
        return sg4::Engine::get_clock() - start;
    }

    // The transfers that share links: where they share one fabric, each alone on its NIC's up
    // link, max-min in closed form; else through SimGrid.
    double shared_links_s(const ResourceLoads& loads)
    {
        bool storage = !loads.node_out.empty(), mpi = !loads.mpi_out.empty();
        if (!routers_below_servers() || loads.server_in.empty()) {
            if (!storage && !mpi)
                return 0;
            if (mpi && !storage)
                return one_shared_link_s(loads.mpi_out, p_.compute.nic_Bps, p_.network.mpi_fabric_Bps);
            if (storage && !mpi && p_.routers.side != RouterSide::client)
                return one_shared_link_s(loads.node_out, p_.compute.nic_Bps, p_.network.storage_fabric_Bps);
        }
        return in_own_actor([this, &loads]() { return shared_flows(loads); });
    }

    // The longest of the transfers alone on their resources: a node's receipts on its NIC's
    // down link, a server's bytes on its link (unless routers above it are shared), an OST's
    // work at its degraded bandwidth (whole bytes, as a disk I/O counts them).
    double lone_resources_s(const ResourceLoads& loads) const
    {
        double longest = 0;
        for (const auto& n : loads.mpi_in)
            longest = std::max(longest, static_cast<double>(n.bytes) / p_.compute.nic_Bps);
        if (!routers_below_servers())
            for (const auto& s : loads.server_in)
                longest = std::max(longest, static_cast<double>(s.bytes) / p_.fs.server_Bps);
        for (const auto& t : loads.targets)
            if (t.bytes >= 1)
                longest = std::max(longest, std::floor(t.bytes) / t.bandwidth);
        return longest;
    }

    bool routers_below_servers() const { return p_.routers.side == RouterSide::server; }

    void set_target_bandwidth(int target, double bw)
    {
        if (bw != disks_[target]->get_write_bandwidth())
            disks_[target]->set_write_bandwidth(bw);
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
        sg4::Link* mpi_fabric = link("mpi-fabric", p_.network.mpi_fabric_Bps);
        sg4::Link* storage_fabric = link("storage-fabric", p_.network.storage_fabric_Bps);
        std::vector<sg4::Link*> routers;
        for (int r = 0; r < p_.routers.count; r++)
            routers.push_back(link("router-" + std::to_string(r), p_.routers.Bps));
        for (int n = 0; n < nodes; n++) {
            std::string id = std::to_string(n);
            sg4::Link* up = link("nic-up-" + id, p_.compute.nic_Bps);
            sg4::Link* down = link("nic-down-" + id, p_.compute.nic_Bps);
            storage_host_.push_back(zone_->create_host("node-" + id, 1e9)->seal());
            mpi_host_.push_back(zone_->create_host("mpi-" + id, 1e9)->seal());
            std::vector<sg4::Link*> storage_up{up};
            if (p_.routers.side == RouterSide::client)
                storage_up.push_back(routers[router_of_node(p_, n)]);
            storage_up.push_back(storage_fabric);
            route(storage_host_.back(), storage_up, {down});
            route(mpi_host_.back(), {up, mpi_fabric}, {down});
        }
        std::vector<sg4::Link*> servers;
        hub_ = zone_->create_host("hub", 1e9)->seal();
        route(hub_, {}, {});
        for (int s = 0; s < storage_servers(p_); s++) {
            servers.push_back(link("server-" + std::to_string(s), p_.fs.server_Bps));
            server_host_.push_back(zone_->create_host("server-" + std::to_string(s), 1e9)->seal());
            std::vector<sg4::Link*> down;
            if (p_.routers.side == RouterSide::server)
                down.push_back(routers[router_of_server(p_, s)]);
            down.push_back(servers.back());
            route(server_host_.back(), {servers.back()}, down);
        }
        for (int t = 0; t < storage_targets(p_); t++) {
            sg4::Host* h = zone_->create_host("ost-" + std::to_string(t), 1e9);
            double bw = target_bandwidth(p_, t);
            disks_.push_back(h->create_disk("ost-disk-" + std::to_string(t), bw, bw)->seal());
            h->seal();
            int server = server_of_target(p_, t);
            std::vector<sg4::Link*> down;
            if (p_.routers.side == RouterSide::server)
                down.push_back(routers[router_of_server(p_, server)]);
            down.push_back(servers[server]);
            route(h, {servers[server]}, down);
            target_host_.push_back(h);
        }
        zone_->seal();
    }

    const Platform& p_;
    sg4::NetZone* zone_ = nullptr;
    sg4::Host* hub_ = nullptr;
    std::vector<sg4::Host*> storage_host_, mpi_host_, target_host_, server_host_;
    std::vector<sg4::Disk*> disks_;
};

}  // namespace

void run_simgrid(const Platform& p, int nodes, const std::function<void(Backend&)>& body)
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
    SimgridBackend backend(p, std::max(1, nodes));
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
