// Many configs against one platform and workload, `jobs` worker processes at a time, results in
// input order. A worker is a forked process that builds the simulation engine once (SimGrid's
// engine is a per-process singleton) and simulates the configs it is handed one after another,
// sharing the HDF5 layouts and the times of phases it has seen. A config that fails yields an
// error entry; a worker that crashes yields an error entry for the config it was running, is
// replaced, and the batch goes on.
#pragma once

#include <nlohmann/json.hpp>

#include "run/cost_estimate.hpp"

namespace iosim {

// `limits`: what a config may cost (the input's options may change them); every worker runs
// with limits.memory_bytes of address space at most.
nlohmann::json simulate_batch(const nlohmann::json& input, int jobs, const Limits& limits);

}  // namespace iosim
