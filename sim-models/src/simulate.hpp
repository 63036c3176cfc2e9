// One simulation: platform + workload + one config in, predicted times and breakdown out.
#pragma once

#include <nlohmann/json.hpp>

namespace iosim {

// input: {"platform": {...}, "workload": {...}, "config": {"files": [...]}, "options": {...}}
// Throws std::invalid_argument for bad input.
nlohmann::json simulate_one(const nlohmann::json& input);

}  // namespace iosim
