// The byte ranges of the file each writer writes: its block of each dataset mapped through the
// dataset's layout (row-major, contiguous or chunked).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/file_layout.hpp"
#include "model/workload.hpp"

namespace iosim {

struct Access {
    uint64_t offset;
    uint64_t length;
    uint32_t writer;
};

// Sorts out[from, end) by offset; a range already in order is left as it is.
void sort_by_offset(std::vector<Access>& out, size_t from = 0);

// Appends `a`, or lengthens the last piece when `a` starts where it ends and
// `same_source(last, a)`: touching pieces that travel together become one.
template <class SameSource>
void append_touching(std::vector<Access>& out, const Access& a, SameSource same_source)
{
    if (!out.empty() && out.back().offset + out.back().length == a.offset && same_source(out.back(), a)) {
        out.back().length += a.length;
        return;
    }
    out.push_back(a);
}

// Appends the writes of every writer of `ds` in file order (by offset). A writer's pieces that
// touch in the file are one run.
void dataset_accesses(const Dataset& ds, const DatasetLayout& layout, std::vector<Access>& out);

// One writer's box of a dataset in one call: start and count per axis.
struct Box {
    uint32_t writer;
    std::vector<uint64_t> start, count;
};

// A call's selection (WORKLOAD.md `calls`) at `origin`, as one box per writer's block: a
// hyperslab's blocks that touch along an axis make one box side there.
std::vector<Box> selection_boxes(const Selection& selection, const std::vector<uint64_t>& origin);

// Appends the runs of `boxes` (one call's selection of `ds`, WORKLOAD.md `calls`), unsorted.
void box_accesses(const Dataset& ds, const DatasetLayout& layout, const std::vector<Box>& boxes,
                  std::vector<Access>& out);

}  // namespace iosim
