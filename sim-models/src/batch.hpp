// Many configs against one platform and workload: each simulation in its own forked child
// (the engine is a per-process singleton), `jobs` at a time, results in input order. A config
// that fails or crashes yields an error entry; the batch goes on.
#pragma once

#include <nlohmann/json.hpp>

namespace iosim {

nlohmann::json simulate_batch(const nlohmann::json& input, int jobs);

}  // namespace iosim
