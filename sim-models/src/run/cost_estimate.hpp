// What a simulation will cost, estimated before any of it is done, so that a workload beyond
// what the machine can simulate is refused at once with the estimate and the limit, instead
// of running for hours or until the kernel kills it. Two estimates: of the workload as read
// (its ranks, files, slots, calls and repetitions: what reading it and placing its ranks
// allocate), and of one config's run (the planner's work: writers per call, two-phase
// intervals, pieces walked one by one, chunks laid out; and what it holds at once).
// Steps are about 0.1 us of this machine each (IOSIM.md, "What the simulation costs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/model.hpp"
#include "run/planner.hpp"

namespace iosim {

struct Limits {
    double max_steps = 4e9;    // about ten minutes of planning on this machine
    uint64_t memory_bytes = 0;  // per worker process (RLIMIT_AS); 0: none
};

class CostEstimate {
public:
    // `n` steps of one kind; the largest contribution names the estimate.
    void add_steps(double n, const std::string& what);
    void add_memory(double bytes, const std::string& what);
    double steps() const { return steps_; }
    double memory() const { return memory_; }
    // "3.2e+12 steps (most for 1e+12 write calls of 4 writers (workload.files[0].calls[0].repeat))"
    std::string steps_text() const;
    // "1.5 GiB (most for ...)"
    std::string memory_text() const;
    std::string text() const;  // both
    // A one-line error if the estimate is beyond the limits.
    void check(const Limits& limits) const;

private:
    double steps_ = 0, memory_ = 0;
    double largest_steps_ = 0, largest_memory_ = 0;
    std::string steps_what_, memory_what_;
};

// The workload as given (WORKLOAD.md), before it is read: robust to any value, allocates
// nothing in proportion to the sizes it finds.
CostEstimate estimate_workload(const nlohmann::json& workload);

// One config's run of a read workload.
CostEstimate estimate_run(const Platform& p, const Workload& w, const std::vector<FileSettings>& settings,
                          const PlanOptions& options);

// "1.5 GiB", "3.2 TiB".
std::string bytes_text(double bytes);

}  // namespace iosim
