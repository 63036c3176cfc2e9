#include "iolib/hdf5_chunk_index.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace iosim {

namespace {

constexpr uint64_t undefined_addr = ~uint64_t{0};
constexpr uint64_t no_chunk = ~uint64_t{0};
constexpr char tree_signature[4] = {'T', 'R', 'E', 'E'};
constexpr uint64_t header_bytes = 24;  // signature, type, level, entries used, left and right siblings
constexpr unsigned raw_data_node = 1;
constexpr unsigned leaf_level = 0;

uint64_t little_endian(const unsigned char* p, int bytes)
{
    uint64_t value = 0;
    for (int i = bytes; i-- > 0;)
        value = value << 8 | p[i];
    return value;
}

struct NodeHeader {
    bool is_raw_data_leaf;
    unsigned entries;
    uint64_t left;
    uint64_t right;
};

NodeHeader node_header(const unsigned char* p)
{
    bool leaf = std::memcmp(p, tree_signature, 4) == 0 && p[4] == raw_data_node && p[5] == leaf_level;
    return {leaf, static_cast<unsigned>(little_endian(p + 6, 2)), little_endian(p + 8, 8), little_endian(p + 16, 8)};
}

// A raw-data key: chunk size (4 bytes), filter mask (4), then the chunk's element offset along
// each dimension and a trailing 0 for the element itself (8 each).
uint64_t key_bytes(size_t rank)
{
    return 8 + 8 * (rank + 1);
}

bool read_fully(int fd, uint64_t offset, std::string& out)
{
    for (size_t done = 0; done < out.size();) {
        ssize_t n = pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (n <= 0)
            return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

// Row-major index of the chunk a key names, or no_chunk if it names no unfiltered chunk of the grid.
uint64_t chunk_index(const unsigned char* key, const ChunkGrid& g)
{
    if (little_endian(key, 4) != g.chunk_bytes || little_endian(key + 4, 4) != 0)
        return no_chunk;
    const size_t rank = g.chunk_dims.size();
    uint64_t index = 0;
    for (size_t a = 0; a < rank; a++) {
        uint64_t offset = little_endian(key + 8 + 8 * a, 8);
        if (offset % g.chunk_dims[a] != 0 || offset / g.chunk_dims[a] >= g.chunks[a])
            return no_chunk;
        index = index * g.chunks[a] + offset / g.chunk_dims[a];
    }
    return little_endian(key + 8 + 8 * rank, 8) == 0 ? index : no_chunk;
}

}  // namespace

ChunkBtreeLeaves::ChunkBtreeLeaves(const std::string& path, uint64_t max_bytes)
{
    if (read_extents(path, max_bytes))
        find_leftmost_leaves();
    else
        extents_.clear();
}

// The data extents of a sparse file, via SEEK_DATA / SEEK_HOLE (tmpfs, ext4, xfs, btrfs).
bool ChunkBtreeLeaves::read_extents(const std::string& path, uint64_t max_bytes)
{
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return false;
    uint64_t total = 0;
    bool ok = true;
    off_t data = lseek(fd, 0, SEEK_DATA);
    while (ok && data >= 0) {
        off_t hole = lseek(fd, data, SEEK_HOLE);
        total += static_cast<uint64_t>(hole - data);
        ok = hole > data && total <= max_bytes;
        if (ok) {
            std::string& bytes = extents_[static_cast<uint64_t>(data)];
            bytes.resize(static_cast<size_t>(hole - data));
            ok = read_fully(fd, static_cast<uint64_t>(data), bytes);
        }
        data = lseek(fd, hole, SEEK_DATA);
    }
    ok = ok && errno == ENXIO;  // no data after the last extent
    close(fd);
    return ok;
}

void ChunkBtreeLeaves::find_leftmost_leaves()
{
    for (const auto& [offset, bytes] : extents_) {
        for (size_t at = bytes.find("TREE"); at != std::string::npos; at = bytes.find("TREE", at + 1)) {
            if (at + header_bytes > bytes.size())
                break;
            NodeHeader h = node_header(reinterpret_cast<const unsigned char*>(bytes.data() + at));
            if (h.is_raw_data_leaf && h.entries > 0 && h.left == undefined_addr)
                leftmost_leaves_.push_back(offset + at);
        }
    }
}

const unsigned char* ChunkBtreeLeaves::bytes_at(uint64_t addr, uint64_t length) const
{
    auto it = extents_.upper_bound(addr);
    if (it == extents_.begin())
        return nullptr;
    --it;
    if (addr - it->first + length > it->second.size())
        return nullptr;
    return reinterpret_cast<const unsigned char*>(it->second.data() + (addr - it->first));
}

std::vector<uint64_t> ChunkBtreeLeaves::chunk_addresses(uint64_t first_chunk_addr, const ChunkGrid& grid) const
{
    const uint64_t key = key_bytes(grid.chunk_dims.size());
    for (uint64_t leaf : leftmost_leaves_) {
        const unsigned char* first_entry = bytes_at(leaf + header_bytes, key + 8);
        if (first_entry == nullptr || little_endian(first_entry + key, 8) != first_chunk_addr)
            continue;
        std::vector<uint64_t> addresses = walk_leaves(leaf, grid);
        if (!addresses.empty())
            return addresses;
    }
    return {};
}

// Follows the right-sibling links from `leaf`; every leaf's left sibling must be the previous
// one. Each leaf adds at least one chunk not seen before, so a cycle ends the walk as a failure.
std::vector<uint64_t> ChunkBtreeLeaves::walk_leaves(uint64_t leaf, const ChunkGrid& grid) const
{
    uint64_t chunks = 1;
    for (uint64_t n : grid.chunks)
        chunks *= n;
    std::vector<uint64_t> addresses(chunks, undefined_addr);
    const uint64_t key = key_bytes(grid.chunk_dims.size());
    uint64_t found = 0;
    for (uint64_t left = undefined_addr; leaf != undefined_addr;) {
        const unsigned char* node = bytes_at(leaf, header_bytes);
        if (node == nullptr)
            return {};
        NodeHeader h = node_header(node);
        node = bytes_at(leaf, header_bytes + h.entries * (key + 8) + key);
        if (node == nullptr || !h.is_raw_data_leaf || h.entries == 0 || h.left != left)
            return {};
        for (unsigned i = 0; i < h.entries; i++) {
            const unsigned char* entry = node + header_bytes + i * (key + 8);
            uint64_t c = chunk_index(entry, grid);
            uint64_t addr = little_endian(entry + key, 8);
            if (c == no_chunk || addresses[c] != undefined_addr || addr == undefined_addr)
                return {};
            addresses[c] = addr;
            found++;
        }
        left = leaf;
        leaf = h.right;
    }
    return found == chunks ? addresses : std::vector<uint64_t>{};
}

}  // namespace iosim
