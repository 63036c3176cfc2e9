// What the configs of a batch share (platform, workload, options), parsed once, and the
// simulation of one config on a backend built for it.
#pragma once

#include <nlohmann/json.hpp>

#include "backend.hpp"
#include "hdf5_layout.hpp"
#include "phase_timer.hpp"
#include "planner.hpp"
#include "workload.hpp"

namespace iosim {

class Scenario {
public:
    // input: {"platform": {...}, "workload": {...}, "options": {...}}.
    // Throws std::invalid_argument (or a JSON error) for bad input.
    explicit Scenario(const nlohmann::json& input);

    const Platform& platform() const { return platform_; }
    int nodes() const { return nodes_; }

    // config: {"files": [...]}. The backend must be built for platform() and nodes(); the
    // cache belongs to that backend. Throws std::invalid_argument for a bad config.
    nlohmann::json simulate(Backend& backend, PhaseCache& cache, const nlohmann::json& config);

private:
    void add_ceiling(nlohmann::json& out, const Breakdown& bd, const TimeAttribution& attribution,
                     bool storage_on_path) const;

    nlohmann::json platform_data_;
    Platform platform_;
    Workload workload_;
    PlanOptions options_;
    int nodes_ = 1;
    LayoutCache layouts_;
};

}  // namespace iosim
