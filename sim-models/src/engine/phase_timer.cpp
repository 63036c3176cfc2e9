#include "engine/phase_timer.hpp"

#include <cstring>

#include "engine/memory_budget.hpp"

namespace iosim {

const PhaseCache::Entry& PhaseCache::find_or_time(std::string&& key, const std::function<Timing()>& time)
{
    auto it = seconds_.find(key);
    if (it == seconds_.end())
        it = seconds_.emplace(std::move(key), time()).first;
    return *it;
}

const PhaseCache::Entry* PhaseCache::find_phase(const std::string& phase_key) const
{
    auto it = phases_.find(phase_key);
    return it == phases_.end() ? nullptr : it->second;
}

void PhaseCache::remember_phase(std::string&& phase_key, const Entry& entry)
{
    phases_.emplace(std::move(phase_key), &entry);
}

void PhaseCache::clear()
{
    phases_.clear();
    seconds_.clear();
}

// The flows with client nodes renamed in order of appearance (nodes are interchangeable
// unless client-side routers group them): equal keys mean equal resource loads up to symmetry.
std::string PhaseTimer::phase_key(const Phase& phase)
{
    bool rename = platform_.routers.side != RouterSide::client;
    int next = 0;
    auto name = [&](int node) {
        if (!rename)
            return node;
        if (static_cast<size_t>(node) >= node_name_.size())
            node_name_.resize(static_cast<size_t>(node) + 1, -1);
        if (node_name_[node] < 0) {
            node_name_[node] = next++;
            renamed_.push_back(node);
        }
        return node_name_[node];
    };
    constexpr size_t flow_bytes = 25;
    std::string key(phase.flows.size() * flow_bytes, '\0');
    char* at = key.data();
    for (const Flow& f : phase.flows) {
        int src = name(f.src), dst = f.to_target ? f.dst : name(f.dst);
        std::memcpy(at, &src, 4);
        std::memcpy(at + 4, &dst, 4);
        at[8] = f.to_target ? 1 : 0;
        std::memcpy(at + 9, &f.bytes, 8);
        std::memcpy(at + 17, &f.target_busy_s, 8);
        at += flow_bytes;
    }
    for (int node : renamed_)
        node_name_[node] = -1;
    renamed_.clear();
    return key;
}

Timing PhaseTimer::timed(const Phase& phase)
{
    if (phase.flows.empty())
        return {phase.fixed_s, {}};
    if (!aggregate_) {
        timed_++;
        double seconds = 0;
        {
            BudgetPause simgrid;
            seconds = backend_.time_flows(phase) + phase.fixed_s;
        }
        return {seconds, binding_of(platform_, summer_.loads(platform_, phase))};
    }
    std::string quick = phase_key(phase);
    const PhaseCache::Entry* entry = cache_.find_phase(quick);
    if (!entry) {
        ResourceLoads loads = summer_.loads(platform_, phase);
        entry = &cache_.find_or_time(symmetric_key(platform_, loads), [this, &loads]() {
            double seconds = 0;
            {
                BudgetPause simgrid;
                seconds = backend_.time_loads(loads);
            }
            return Timing{seconds, binding_of(platform_, loads)};
        });
        cache_.remember_phase(std::move(quick), *entry);
    }
    seen_.insert(&entry->first);
    return {entry->second.seconds + phase.fixed_s, entry->second.binding};
}

}  // namespace iosim
