// The regions (pieces.hpp) a dataset's writers write, from where its layout puts the data: a
// contiguous dataset's decomposition or selection in closed form (box_region.hpp), a chunked
// one's pieces listed chunk by chunk (listed_region.hpp).
#pragma once

#include <memory>
#include <vector>

#include "model/file_layout.hpp"
#include "selection/pieces.hpp"

namespace iosim {

// Every writer's block of the dataset's decomposition (WORKLOAD.md `decomposition`).
std::shared_ptr<const Region> dataset_region(const Dataset& ds, const DatasetLayout& layout);

// A call's selection of the dataset (WORKLOAD.md `calls`) with its grid placed at `origin`.
std::vector<std::shared_ptr<const Region>> selection_regions(const Dataset& ds, const DatasetLayout& layout,
                                                             const Selection& selection,
                                                             const std::vector<uint64_t>& origin);

}  // namespace iosim
