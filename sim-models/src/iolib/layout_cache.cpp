#include "iolib/layout_cache.hpp"

#include <vector>

#include "iolib/io_library.hpp"

namespace iosim {

namespace {

// Everything a library's layout reads from the settings, as bytes.
std::string layout_key(size_t file_index, const FileSession& file, const FileSettings& s)
{
    const IoLibrary& library = io_library(file.api);
    std::vector<uint64_t> words{file_index, s.align_threshold, s.align_boundary, s.meta_block_size};
    for (size_t i = 0; i < file.datasets.size(); i++) {
        auto chunk = library.chunk_dims(file.datasets[i], s.datasets[i]);
        words.push_back(chunk.size());
        words.insert(words.end(), chunk.begin(), chunk.end());
    }
    if (s.library)
        s.library->append_words(words);
    return std::string(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(uint64_t));
}

size_t held_bytes(const FileLayout& layout)
{
    size_t bytes = sizeof layout;
    for (const DatasetLayout& d : layout.datasets)
        bytes += sizeof d + (d.chunk_dims.size() + d.chunk_grid.size() + d.chunk_addr.size()) * sizeof(uint64_t);
    return bytes + layout.own_datasets.size() * sizeof(OwnDataset);
}

}  // namespace

const FileLayout& LayoutCache::get(size_t file_index, const FileSession& file, const FileSettings& settings)
{
    std::string key = layout_key(file_index, file, settings);
    auto it = layouts_.find(key);
    if (it == layouts_.end()) {
        it = layouts_.emplace(key, io_library(file.api).layout(file, settings)).first;
        bytes_ += held_bytes(it->second);
    }
    return it->second;
}

void LayoutCache::forget_beyond(size_t bytes)
{
    if (bytes_ <= bytes)
        return;
    layouts_.clear();
    bytes_ = 0;
}

}  // namespace iosim
