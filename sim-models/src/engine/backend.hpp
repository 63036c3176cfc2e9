// The boundary between the model (which phases happen) and the engine that times them.
// SimGrid is the engine here; another one (CODES/ROSS) would implement the same interface.
#pragma once

#include <functional>

#include "engine/resource_loads.hpp"
#include "model/model.hpp"

namespace iosim {

class Backend {
public:
    virtual ~Backend() = default;
    // Simulated seconds for the flows of `phase` to complete, from an idle system, every
    // flow through its whole path (exact, slow).
    virtual double time_flows(const Phase& phase) = 0;
    // Simulated seconds for every resource to carry its total, all at once (fast).
    virtual double time_loads(const ResourceLoads& loads) = 0;
    // Called before the engine's clock moves for a phase (most phases are timed in closed
    // form and never move it): where a batch forks a config that needs the clock, so that it
    // starts at time zero whatever ran before it (run/batch.cpp). May throw.
    std::function<void()> before_clock_moves;
};

// Builds the platform for `nodes` client nodes and runs `body` inside the simulation with a
// backend bound to it. Once per process: SimGrid's engine is a per-process singleton. `body`
// may time any number of phases, of any number of simulations of this platform and node count.
void run_simgrid(const Platform& p, int nodes, const std::function<void(Backend&)>& body);

}  // namespace iosim
