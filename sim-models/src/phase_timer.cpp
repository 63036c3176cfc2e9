#include "phase_timer.hpp"

namespace iosim {

const std::pair<const std::string, double>& PhaseCache::find_or_time(std::string&& key,
                                                                      const std::function<double()>& time)
{
    auto it = seconds_.find(key);
    if (it == seconds_.end()) {
        key_bytes_ += key.size();
        it = seconds_.emplace(std::move(key), time()).first;
    }
    return *it;
}

void PhaseCache::trim()
{
    if (key_bytes_ <= max_key_bytes)
        return;
    seconds_.clear();
    key_bytes_ = 0;
}

double PhaseTimer::time(const Phase& phase)
{
    if (phase.flows.empty())
        return phase.fixed_s;
    if (!aggregate_) {
        timed_++;
        return backend_.time_flows(phase) + phase.fixed_s;
    }
    ResourceLoads loads = resource_loads(platform_, phase);
    const auto& entry = cache_.find_or_time(symmetric_key(platform_, loads),
                                            [this, &loads]() { return backend_.time_loads(loads); });
    seen_.insert(&entry.first);
    return entry.second + phase.fixed_s;
}

}  // namespace iosim
