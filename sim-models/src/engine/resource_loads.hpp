// A phase as its resources see it when each carries its total at once (the aggregated mode):
// what each client node sends to and receives from other nodes, each client node's storage
// traffic, each server's, each OST's work at its degraded bandwidth. symmetric_key() names the loads up to renaming of interchangeable
// resources, so that phases which only differ by such a renaming are timed once.
#pragma once

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

ResourceLoads resource_loads(const Platform& p, const Phase& phase);

// Equal keys mean loads that take the same time: client nodes are interchangeable within a
// client-side router (a NIC's two directions independently: they are separate links), servers
// within a server-side router, routers among themselves, and OSTs among themselves (an OST's
// disk is reached by no other flow).
std::string symmetric_key(const Platform& p, const ResourceLoads& loads);

}  // namespace iosim
