#include "run/simulate.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "engine/ceiling.hpp"
#include "engine/memory_budget.hpp"
#include "fs/lustre_client.hpp"
#include "input/platform.hpp"

namespace iosim {

using nlohmann::json;

namespace {

PlanOptions parse_options(const json& o)
{
    PlanOptions opt;
    opt.aggregate = o.value("aggregate", true);
    opt.report_ranges = o.value("report_ranges", false);
    opt.best_stripe_count = o.value("best_stripe_count", 0);
    opt.walk_pieces = o.value("walk_pieces", false);
    opt.fold_repeats = o.value("fold_repeats", true);
    opt.list_write_paths = o.value("write_paths", false);
    opt.osc_table_cells = o.value("osc_table_cells", opt.osc_table_cells);
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

// How many write calls took each path.
json write_path_calls(const std::vector<WritePath>& paths)
{
    json out = json::object();
    for (WritePath path : {WritePath::two_phase, WritePath::independent})
        out[write_path_name(path)] = std::count(paths.begin(), paths.end(), path);
    return out;
}

json write_path_list(const std::vector<WritePath>& paths)
{
    json out = json::array();
    for (WritePath path : paths)
        out.push_back(write_path_name(path));
    return out;
}

json breakdown_json(const Breakdown& bd, uint64_t distinct, bool list_write_paths)
{
    json out = {{"bytes_per_target", bd.bytes_per_target},
            {"bytes_per_server", bd.bytes_per_server},
            {"rpcs", bd.rpcs},
            {"lock_conflicts", bd.lock_conflicts},
            {"rounds", bd.rounds},
            {"shuffle_bytes", bd.shuffle_bytes},
            {"sieve_read_bytes", bd.sieve_read_bytes},
            {"posix", {{"writes", bd.posix.writes},
                       {"metadata_writes", bd.posix.metadata_writes},
                       {"reads", bd.posix.reads},
                       {"read_bytes", bd.posix.read_bytes},
                       {"write_sizes", bd.posix.write_sizes}}},
            {"payload_bytes", bd.payload_bytes},
            {"file_bytes", bd.file_bytes},
            {"aggregators", bd.aggregators},
            {"write_path_calls", write_path_calls(bd.write_paths)},
            {"distinct_phases_simulated", distinct}};
    if (!bd.dataset_ranges.empty())
        out["dataset_ranges"] = ranges_json(bd);
    if (list_write_paths)
        out["write_paths"] = write_path_list(bd.write_paths);
    return out;
}

// What the targets took: the bytes written over bytes still dirty in the client's cache
// (dirty_pages.hpp) reached them once.
void take_overwritten(const Platform& p, Breakdown& bd, const std::vector<uint64_t>& overwritten_per_target)
{
    if (overwritten_per_target.empty())
        return;
    for (size_t t = 0; t < overwritten_per_target.size(); t++)
        bd.bytes_per_target[t] -= overwritten_per_target[t];
    sum_by_server(p, bd);
}

// The limits the options set, over the command line's.
Limits limits_of(const json& options, Limits limits)
{
    if (options.contains("max_steps"))
        limits.max_steps = options["max_steps"].get<double>();
    if (options.contains("memory_limit"))
        limits.memory_bytes = options["memory_limit"].get<uint64_t>();
    return limits;
}

// The workload's own cost, checked before it is read: reading it allocates in proportion to it.
const json& affordable(const json& workload, const Limits& limits)
{
    estimate_workload(workload).check(limits);
    return workload;
}

}  // namespace

// The run's ceiling (ceiling.hpp), the best any layout could reach from its placement, and
// what binds each: the mechanism that took most of the run's time (binding.hpp) and the
// resource of least capacity.
void Scenario::add_ceiling(json& out, const Breakdown& bd, const TimeAttribution& attribution,
                           bool storage_on_path) const
{
    Ceiling run = run_ceiling(platform_, bd, storage_on_path);
    Ceiling best = best_ceiling(platform_, nodes_, workload_.ranks, options_.best_stripe_count > 0
                                ? options_.best_stripe_count : platform_.fs.max_stripe_count, storage_on_path);
    json ceiling = ceiling_json(run);
    out["ceiling_mbs"] = ceiling["mbs"];
    out["best_ceiling_mbs"] = ceiling_json(best)["mbs"];
    out["bound_by"] = {{"run", attribution.total() > 0 ? mechanism_name(attribution.largest()) : "nothing"},
                       {"ceiling", ceiling["bound_by"]}};
    out["ceiling"] = ceiling["resources"];
    out["time_by_mechanism"] = attribution.to_json();
}

Scenario::Scenario(const json& input, const Limits& limits)
    : limits_(limits_of(input.value("options", json::object()), limits)),
      platform_data_(input.at("platform")),
      platform_(parse_platform(platform_data_)),
      workload_(parse_workload(affordable(input.at("workload"), limits_))),
      options_(parse_options(input.value("options", json::object()))),
      estimate_only_(input.value("options", json::object()).value("estimate_only", false))
{
    int rpn = ranks_per_node(platform_, workload_);
    nodes_ = std::max(1, (workload_.ranks + rpn - 1) / rpn);
    place_job(platform_, nodes_);
}

std::vector<FileSettings> Scenario::file_settings(const json& config) const
{
    json file_configs = config.value("files", json::array());
    std::vector<FileSettings> settings;
    for (size_t i = 0; i < workload_.files.size(); i++) {
        const FileSession& file = workload_.files[i];
        settings.push_back(resolve_settings(platform_data_, i < file_configs.size() ? file_configs[i] : json::object(),
                                            file, platform_, workload_.openmpi));
    }
    return settings;
}

// What a worker's layouts may hold between configs (the chunk addresses of about eight
// million chunks); beyond it they are forgotten, and later configs lay out their files again.
constexpr size_t kept_layout_bytes = size_t{64} << 20;

void Scenario::lay_out(const json& config, const std::function<void(const CostEstimate&)>& announce)
{
    laid_out_.clear();
    settings_ = file_settings(config);
    estimate_ = estimate_run(platform_, workload_, settings_, options_);
    if (estimate_only_)
        return;
    estimate_.check(limits_);
    if (announce)
        announce(estimate_);
    layouts_.forget_beyond(kept_layout_bytes);
    BudgetedWork planning;  // memory_budget.hpp
    for (size_t i = 0; i < workload_.files.size(); i++)
        laid_out_.push_back(&layouts_.get(i, workload_.files[i], settings_[i]));
}

json Scenario::simulate(Backend& backend, PhaseCache& cache)
{
    if (estimate_only_)
        return {{"ok", true},
                {"estimate", {{"steps", estimate_.steps()}, {"memory_bytes", estimate_.memory()},
                              {"text", estimate_.text()}}}};
    std::map<std::string, double> phases{{"open", 0}, {"write", 0}, {"close", 0}};
    Breakdown bd;
    PhaseTimer timer(backend, platform_, options_.aggregate, cache);
    TimeAttribution attribution;
    LustreClient client(platform_, timer, attribution, options_.osc_table_cells);
    {
        BudgetedWork planning;  // memory_budget.hpp
        plan_run(platform_, workload_, settings_, laid_out_, options_, bd, [&](Phase&& ph) {
            for (uint64_t k = 0; k < ph.repeat; k++)
                phases[ph.label] += client.run(ph);
        }, [&](const std::vector<Phase>& block, uint64_t times, const TargetRotation& rotation) {
            std::vector<double> seconds = client.run_block(block, times, options_.fold_repeats, rotation);
            for (size_t i = 0; i < block.size(); i++)
                phases[block[i].label] += seconds[i];
        });
    }
    take_overwritten(platform_, bd, client.overwritten_per_target());
    double total = 0;
    for (auto& [label, t] : phases)
        total += t;
    // the timed region: open to close (everything but computation), or the writes alone
    double io_time = workload_.writes_timed ? phases["write"]
                                            : total - (phases.count("compute") ? phases["compute"] : 0);
    json out = {{"ok", true},
                {"time_s", io_time},
                {"rate_mbs", io_time > 0 ? static_cast<double>(bd.payload_bytes) / 1e6 / io_time : 0},
                {"phases", phases},
                {"nodes", nodes_},
                {"breakdown", breakdown_json(bd, timer.distinct(), options_.list_write_paths)}};
    add_ceiling(out, bd, attribution, client.storage_within_io_time());
    return out;
}

}  // namespace iosim
