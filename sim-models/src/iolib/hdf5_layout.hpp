// Where HDF5 puts each dataset's data in the file. The answer comes from the HDF5 library
// itself: the file's objects are created, without data, in a sparse scratch file, so alignment,
// metadata blocks and early chunk allocation land exactly where the real library of this
// machine puts them. Chunk addresses are then read from the chunk B-trees the library wrote
// to that file (hdf5_chunk_index.hpp), checked against the library's own answers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "input/workload.hpp"
#include "model/model.hpp"

namespace iosim {

struct DatasetLayout {
    uint64_t base = 0;                  // contiguous: address of element 0
    std::vector<uint64_t> chunk_dims;   // empty: contiguous
    std::vector<uint64_t> chunk_grid;   // chunks along each axis
    std::vector<uint64_t> chunk_addr;   // chunked: address of each chunk, row-major over the grid
    uint64_t chunk_bytes = 0;
};

// Calls fn(c, index) for every chunk whose coordinates c lie between `first` and `last` on each
// axis, in row-major order; index is the chunk's row-major index over `layout`'s grid.
template <typename Fn>
void for_each_chunk(const DatasetLayout& layout, const std::vector<uint64_t>& first,
                    const std::vector<uint64_t>& last, Fn fn)
{
    size_t nd = first.size();
    std::vector<uint64_t> c = first;
    for (;;) {
        uint64_t index = 0;
        for (size_t a = 0; a < nd; a++)
            index = index * layout.chunk_grid[a] + c[a];
        fn(c, index);
        size_t a = nd;
        while (a-- > 0) {
            if (++c[a] <= last[a])
                break;
            c[a] = first[a];
        }
        if (a == static_cast<size_t>(-1))
            return;
    }
}

struct FileLayout {
    std::vector<DatasetLayout> datasets;
    uint64_t end_of_file = 0;
    uint64_t metadata_bytes = 0;  // the file's bytes that are not dataset data
    uint64_t metadata_entries = 0;  // objects whose metadata is written at close
};

// Chunk dims for a dataset under its settings (explicit dims, or chunk_size along axis 0).
std::vector<uint64_t> effective_chunk_dims(const Dataset& ds, const DatasetSettings& s);

FileLayout hdf5_layout(const FileSession& file, const FileSettings& settings);

// Datasets back to back from offset 0, no metadata (MPI-IO and POSIX workloads).
FileLayout flat_layout(const FileSession& file);

// The layouts of one workload's files, each computed once per combination of the settings
// that decide it (alignment, metadata block size, chunk dims): configs of a batch share them.
class LayoutCache {
public:
    const FileLayout& get(size_t file_index, const FileSession& file, const FileSettings& settings);

private:
    std::map<std::string, FileLayout> layouts_;
};

}  // namespace iosim
