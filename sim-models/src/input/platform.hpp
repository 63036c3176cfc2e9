// Platform parameters and per-file settings from their JSON form (the values of a platform
// YAML with provenance stripped, and a tuning config resolved for each file and dataset).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "model/workload.hpp"
#include "model/model.hpp"

namespace iosim {

Platform parse_platform(const nlohmann::json& data);

// A job of `nodes` compute nodes: with client-side routers it runs in a partition of at least
// min_partition_nodes, and its nodes are spread evenly over that partition's routers.
void place_job(Platform& p, int nodes);

// Site defaults of the platform, overridden by what the config sets for this file; under
// Open MPI (`openmpi`) with its openmpi block (MCA parameters).
FileSettings resolve_settings(const nlohmann::json& platform_data, const nlohmann::json& file_config,
                              const FileSession& file, const Platform& platform, bool openmpi);

}  // namespace iosim
