// Where a file's datasets lie: each dataset's data, contiguous or in chunks, and the bytes of
// the file that are not data. The file's I/O library decides it (iolib/io_library.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

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

// A contiguous dataset the I/O library makes of its own (netCDF-4's dimensions).
struct OwnDataset {
    uint64_t base = 0;
    uint64_t bytes = 0;
};

struct FileLayout {
    std::vector<DatasetLayout> datasets;
    std::vector<OwnDataset> own_datasets;
    uint64_t end_of_file = 0;
    uint64_t metadata_bytes = 0;  // the file's bytes that are not dataset data
    uint64_t metadata_entries = 0;  // objects whose metadata is written at close
};

}  // namespace iosim
