// What the configs of a batch share (platform, workload, options), parsed once, and the
// simulation of one config on a backend built for it.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

#include "engine/backend.hpp"
#include "engine/phase_timer.hpp"
#include "input/workload.hpp"
#include "iolib/layout_cache.hpp"
#include "run/cost_estimate.hpp"
#include "run/planner.hpp"

namespace iosim {

class Scenario {
public:
    // input: {"platform": {...}, "workload": {...}, "options": {...}}; options.max_steps and
    // options.memory_limit override `limits`. Throws std::invalid_argument (or a JSON error)
    // for bad input, and for a workload whose estimated cost is beyond the limits.
    Scenario(const nlohmann::json& input, const Limits& limits);

    const Platform& platform() const { return platform_; }
    const Limits& limits() const { return limits_; }
    // The estimate of the config laid out last.
    const CostEstimate& estimate() const { return estimate_; }
    int nodes() const { return nodes_; }

    // config: {"files": [...]}: its files' settings, its estimate (checked against the limits,
    // then heard by `announce`) and its files' layouts, for simulate(). The layouts are kept
    // for the configs after it: a batch's worker lays out each config before it forks the
    // config's child, so the child simulates what the worker laid out, and the children of
    // later configs with the same layout settings inherit it. Throws std::invalid_argument for
    // a bad config, or one whose estimated cost is beyond the limits. With
    // options.estimate_only nothing is checked, announced or laid out.
    void lay_out(const nlohmann::json& config, const std::function<void(const CostEstimate&)>& announce = {});
    // The config laid out last, simulated. The backend must be built for platform() and
    // nodes(); the cache belongs to that backend. With options.estimate_only the answer is the
    // estimate alone ({"ok": true, "estimate": {"steps", "memory_bytes", "text"}}).
    nlohmann::json simulate(Backend& backend, PhaseCache& cache);

private:
    std::vector<FileSettings> file_settings(const nlohmann::json& config) const;
    void add_ceiling(nlohmann::json& out, const Breakdown& bd, const TimeAttribution& attribution,
                     bool storage_on_path) const;

    Limits limits_;
    CostEstimate estimate_;
    nlohmann::json platform_data_;
    Platform platform_;
    Workload workload_;
    PlanOptions options_;
    bool estimate_only_ = false;
    int nodes_ = 1;
    LayoutCache layouts_;
    std::vector<FileSettings> settings_;        // of the config laid out last
    std::vector<const FileLayout*> laid_out_;  // its files' layouts, in layouts_
};

}  // namespace iosim
