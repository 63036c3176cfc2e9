// Platform parameters and per-file settings from their JSON form (the values of a platform
// YAML with provenance stripped, and a tuning config resolved for each file and dataset).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model.hpp"
#include "workload.hpp"

namespace iosim {

Platform parse_platform(const nlohmann::json& data);

// Site defaults of the platform, overridden by what the config sets for this file.
FileSettings resolve_settings(const nlohmann::json& platform_data, const nlohmann::json& file_config,
                              const FileSession& file, const Platform& platform);

}  // namespace iosim
