// A phase as its resources see it when each carries its total at once (the aggregated mode):
// what each client node sends to and receives from other nodes, each client node's storage
// traffic, each server's, each OST's work at its degraded bandwidth. symmetric_key() names the loads up to renaming of interchangeable
// resources, so that phases which only differ by such a renaming are timed once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace iosim {

struct ResourceTotal {
    int id;  // client node or server
    uint64_t bytes;
};

struct TargetLoad {
    int target;
    double bandwidth;  // degraded_bandwidth for its n client nodes
    double bytes;      // data plus per-RPC and lock costs expressed at that bandwidth
    double data_bytes;      // the data alone
    double full_bandwidth;  // its bandwidth with one client stream
};

struct ResourceLoads {
    std::vector<ResourceTotal> mpi_out;    // by node: what it sends to other nodes
    std::vector<ResourceTotal> mpi_in;     // by node: what it receives from other nodes
    std::vector<ResourceTotal> node_out;   // by node
    std::vector<ResourceTotal> server_in;  // by server
    std::vector<TargetLoad> targets;       // by target; only targets with work
};

// Per target: how many client nodes write to it in this phase (ranks of a node share its
// Lustre client), and the bandwidth that leaves.
std::vector<int> target_clients(const Platform& p, const Phase& phase);
double degraded_bandwidth(const Platform& p, int target, int clients);

// Amounts summed per id (a node, a server, an OST), handed out in id order; the amounts of one
// id are added in the order given. Arrays over the ids seen, cleared by the entries used: a
// phase of a huge run often has a handful of flows, and there may be millions of such phases.
template <typename Amount>
class SumsById {
public:
    void add(int id, Amount amount)
    {
        auto at = static_cast<size_t>(id);
        if (at >= sums_.size()) {
            sums_.resize(at + 1, Amount{});
            used_.resize(at + 1, 0);
        }
        if (!used_[at]) {
            used_[at] = 1;
            ids_.push_back(id);
        }
        sums_[at] += amount;
    }
    // emit(id, sum) for each id in id order; the sums are then empty.
    template <typename Emit>
    void take(Emit emit)
    {
        std::sort(ids_.begin(), ids_.end());
        for (int id : ids_) {
            auto at = static_cast<size_t>(id);
            emit(id, sums_[at]);
            sums_[at] = Amount{};
            used_[at] = 0;
        }
        ids_.clear();
    }

private:
    std::vector<Amount> sums_;
    std::vector<char> used_;
    std::vector<int> ids_;
};

// The client nodes of each target's flows, counted once each.
class TargetClients {
public:
    void add(int target, int client);
    // How many distinct clients `target` had (0: none added); its list is then empty.
    int take(int target);

private:
    std::vector<std::vector<int>> clients_of_;  // target -> the client of each of its flows
    std::vector<uint64_t> counted_;  // client node -> the count it was last counted in
    uint64_t count_ = 0;             // counts made so far
};

// The loads of phases, one after another (its sums keep their room from phase to phase).
class LoadSummer {
public:
    ResourceLoads loads(const Platform& p, const Phase& phase);

private:
    // An OST's data and the seconds of its per-request and lock costs, added flow by flow.
    struct TargetWork {
        uint64_t bytes = 0;
        double busy_s = 0;
        TargetWork& operator+=(const TargetWork& w)
        {
            bytes += w.bytes;
            busy_s += w.busy_s;
            return *this;
        }
    };
    SumsById<uint64_t> mpi_out_, mpi_in_, node_out_, server_in_;
    SumsById<TargetWork> targets_;
    TargetClients clients_;
};

// Equal keys mean loads that take the same time: client nodes are interchangeable within a
// client-side router (a NIC's two directions independently: they are separate links), servers
// within a server-side router, routers among themselves, and OSTs among themselves (an OST's
// disk is reached by no other flow).
std::string symmetric_key(const Platform& p, const ResourceLoads& loads);

}  // namespace iosim
