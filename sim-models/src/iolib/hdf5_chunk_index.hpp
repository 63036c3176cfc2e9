// Chunk addresses read from the leaves of the chunks' version-1 B-trees in an HDF5 file.
//
// HDF5 1.10 answers H5Dget_chunk_info_by_coord by iterating the dataset's B-tree from its first
// chunk, so asking for each of n chunks costs O(n^2) (seconds at 10^4 chunks, minutes at 10^5).
// The B-tree's leaves are linked left to right and their entries are (chunk offset, address)
// pairs: walking them gives every chunk in O(n). Layout: "HDF5 File Format Specification",
// section III.A.1 (version 1 B-trees, node type 1: raw data chunks).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iosim {

// The chunks of one dataset: none filtered, all `chunk_bytes` long.
struct ChunkGrid {
    std::vector<uint64_t> chunk_dims;  // elements of a chunk along each axis
    std::vector<uint64_t> chunks;      // chunks along each axis
    uint64_t chunk_bytes = 0;
};

class ChunkBtreeLeaves {
public:
    // Reads the written extents of the HDF5 file at `path` (flushed, with 8-byte addresses and
    // lengths, no user block) and finds the raw-data leaves that have no left sibling. A file
    // whose written bytes exceed `max_bytes` is not read, and no chunk address is found in it.
    explicit ChunkBtreeLeaves(const std::string& path, uint64_t max_bytes = uint64_t{1} << 30);

    // The address of each chunk of the grid (row-major), walking the leaves from the leftmost
    // one whose first chunk is at `first_chunk_addr`. Empty if no such walk finds every chunk of
    // the grid exactly once and nothing else.
    std::vector<uint64_t> chunk_addresses(uint64_t first_chunk_addr, const ChunkGrid& grid) const;

private:
    const unsigned char* bytes_at(uint64_t addr, uint64_t length) const;
    bool read_extents(const std::string& path, uint64_t max_bytes);
    void find_leftmost_leaves();
    std::vector<uint64_t> walk_leaves(uint64_t leftmost_leaf, const ChunkGrid& grid) const;

    std::map<uint64_t, std::string> extents_;  // file offset -> the bytes written from there
    std::vector<uint64_t> leftmost_leaves_;
};

}  // namespace iosim
