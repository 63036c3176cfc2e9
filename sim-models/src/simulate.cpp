#include "simulate.hpp"

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "backend.hpp"
#include "planner.hpp"
#include "platform.hpp"

namespace iosim {

using nlohmann::json;

namespace {

// Phases that differ only by which (symmetric) client nodes take part take the same time:
// nodes are renamed in order of first appearance and the renamed phase is timed once.
// With routers on the client side nodes are not symmetric, so storage phases keep their names.
class PhaseTimer {
public:
    PhaseTimer(Backend& backend, const Platform& p, bool memoise)
        : backend_(backend), memoise_(memoise), client_routers_(p.router_side == RouterSide::client)
    {
    }

    double time(const Phase& phase)
    {
        if (phase.flows.empty())
            return phase.fixed_s;
        if (!memoise_)
            return backend_.time_flows(phase) + phase.fixed_s;
        Phase renamed = canonical(phase);
        std::string key = signature(renamed);
        auto it = cache_.find(key);
        if (it == cache_.end()) {
            it = cache_.emplace(key, backend_.time_flows(renamed)).first;
            distinct_++;
        }
        return it->second + phase.fixed_s;
    }

    uint64_t distinct() const { return distinct_; }

private:
    Phase canonical(const Phase& phase) const
    {
        bool keep_names = client_routers_ && std::any_of(phase.flows.begin(), phase.flows.end(),
                                                          [](const Flow& f) { return f.to_target; });
        if (keep_names)
            return phase;
        Phase out = phase;
        std::unordered_map<int, int> name;
        auto rename = [&name](int node) { return name.try_emplace(node, static_cast<int>(name.size())).first->second; };
        for (Flow& f : out.flows) {
            f.src = rename(f.src);
            if (!f.to_target)
                f.dst = rename(f.dst);
        }
        return out;
    }

    static std::string signature(const Phase& phase)
    {
        std::string key;
        key.reserve(phase.flows.size() * 32);
        for (const Flow& f : phase.flows) {
            char buf[40];
            std::memcpy(buf, &f.src, 4);
            std::memcpy(buf + 4, &f.dst, 4);
            buf[8] = f.to_target ? 1 : 0;
            std::memcpy(buf + 9, &f.bytes, 8);
            std::memcpy(buf + 17, &f.target_busy_s, 8);
            key.append(buf, 25);
        }
        return key;
    }

    Backend& backend_;
    bool memoise_;
    bool client_routers_;
    std::unordered_map<std::string, double> cache_;
    uint64_t distinct_ = 0;
};

PlanOptions parse_options(const json& o)
{
    PlanOptions opt;
    opt.aggregate = o.value("aggregate", true);
    opt.report_ranges = o.value("report_ranges", false);
    std::string placement = o.value("placement", std::string("packed"));
    if (placement == "target-grouped")
        opt.placement = Placement::target_grouped;
    else if (placement != "packed")
        throw std::invalid_argument("options.placement: packed or target-grouped, got '" + placement + "'");
    return opt;
}

json ranges_json(const Breakdown& bd)
{
    json out = json::array();
    for (const auto& d : bd.dataset_ranges) {
        json ranges = json::array();
        for (const auto& r : d.ranges)
            ranges.push_back({r.offset, r.length, r.writer});
        out.push_back({{"file", d.file}, {"dataset", d.dataset}, {"ranges", ranges}});
    }
    return out;
}

json breakdown_json(const Breakdown& bd, uint64_t distinct)
{
    json out = {{"bytes_per_target", bd.bytes_per_target},
            {"bytes_per_server", bd.bytes_per_server},
            {"rpcs", bd.rpcs},
            {"lock_conflicts", bd.lock_conflicts},
            {"rounds", bd.rounds},
            {"shuffle_bytes", bd.shuffle_bytes},
            {"payload_bytes", bd.payload_bytes},
            {"file_bytes", bd.file_bytes},
            {"aggregators", bd.aggregators},
            {"write_paths", bd.write_paths},
            {"distinct_phases_simulated", distinct}};
    if (!bd.dataset_ranges.empty())
        out["dataset_ranges"] = ranges_json(bd);
    return out;
}

}  // namespace

json simulate_one(const json& input)
{
    const json& pdata = input.at("platform");
    Platform platform = parse_platform(pdata);
    Workload workload = parse_workload(input.at("workload"));
    json config = input.value("config", json::object());
    json file_configs = config.value("files", json::array());
    std::vector<FileSettings> settings;
    for (size_t i = 0; i < workload.files.size(); i++)
        settings.push_back(resolve_settings(pdata, i < file_configs.size() ? file_configs[i] : json::object(),
                                            workload.files[i], platform));
    PlanOptions options = parse_options(input.value("options", json::object()));
    int rpn = ranks_per_node(platform, workload);
    int nodes = (workload.ranks + rpn - 1) / rpn;

    std::map<std::string, double> phases{{"open", 0}, {"write", 0}, {"close", 0}};
    Breakdown bd;
    uint64_t distinct = 0;
    run_simgrid(platform, nodes, !options.aggregate, [&](Backend& backend) {
        PhaseTimer timer(backend, platform, options.aggregate);
        plan_run(platform, workload, settings, options, bd,
                 [&](Phase&& ph) { phases[ph.label] += timer.time(ph) * static_cast<double>(ph.repeat); });
        distinct = timer.distinct();
    });
    double total = 0;
    for (auto& [label, t] : phases)
        total += t;
    double io_time = total - (phases.count("compute") ? phases["compute"] : 0);
    return {{"ok", true},
            {"time_s", io_time},
            {"rate_mbs", io_time > 0 ? static_cast<double>(bd.payload_bytes) / 1e6 / io_time : 0},
            {"phases", phases},
            {"nodes", nodes},
            {"breakdown", breakdown_json(bd, distinct)}};
}

}  // namespace iosim
