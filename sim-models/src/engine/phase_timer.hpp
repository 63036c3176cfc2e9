// Times the phases of a simulation on a backend. Aggregated mode: a phase's resource loads
// are timed once per symmetric key within a simulation. Unaggregated mode: every phase through
// every flow's path.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/backend.hpp"
#include "engine/binding.hpp"
#include "engine/resource_loads.hpp"

namespace iosim {

// Seconds per symmetric key of resource loads, for one backend, and a shortcut to them from
// phases as the planner emits them (computing the loads and their key costs more than
// looking a phase up).
// A phase's flow time and the mechanisms it goes to (binding.hpp).
struct Timing {
    double seconds = 0;
    PhaseBinding binding;
};

class PhaseCache {
public:
    using Entry = std::pair<const std::string, Timing>;
    // The entry for `key`, timed by `time` if absent.
    const Entry& find_or_time(std::string&& key, const std::function<Timing()>& time);
    const Entry* find_phase(const std::string& phase_key) const;
    void remember_phase(std::string&& phase_key, const Entry& entry);
    void clear();

private:
    std::unordered_map<std::string, Timing> seconds_;
    std::unordered_map<std::string, const Entry*> phases_;
};

class PhaseTimer {
public:
    PhaseTimer(Backend& backend, const Platform& p, bool aggregate, PhaseCache& cache)
        : backend_(backend), platform_(p), aggregate_(aggregate), cache_(cache)
    {
    }

    // The phase's seconds, fixed costs included.
    double time(const Phase& phase) { return timed(phase).seconds; }
    // The same, with the mechanisms its flow time (beyond its fixed costs) goes to.
    Timing timed(const Phase& phase);
    // Distinct phases of this simulation (aggregated: distinct keys, timed now or before).
    uint64_t distinct() const { return aggregate_ ? seen_.size() : timed_; }

private:
    std::string phase_key(const Phase& phase);

    Backend& backend_;
    const Platform& platform_;
    bool aggregate_;
    PhaseCache& cache_;
    std::unordered_set<const std::string*> seen_;
    uint64_t timed_ = 0;
    std::vector<int> node_name_;  // scratch of phase_key(): node -> name, -1 when unnamed
    std::vector<int> renamed_;    // scratch of phase_key(): the nodes named
    LoadSummer summer_;
};

}  // namespace iosim
