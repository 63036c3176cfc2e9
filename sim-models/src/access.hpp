// The byte ranges of the file each writer writes: its block of each dataset mapped through the
// dataset's layout (row-major, contiguous or chunked).
#pragma once

#include <cstdint>
#include <vector>

#include "hdf5_layout.hpp"
#include "workload.hpp"

namespace iosim {

struct Access {
    uint64_t offset;
    uint64_t length;
    uint32_t writer;
};

// Appends the writes of every writer of `ds` in file order (by offset). A writer's pieces that
// touch in the file are one run.
void dataset_accesses(const Dataset& ds, const DatasetLayout& layout, std::vector<Access>& out);

}  // namespace iosim
