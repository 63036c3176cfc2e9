// Where HDF5 puts each dataset's data in the file. The answer comes from the HDF5 library
// itself: the file's objects are created, without data, in a sparse scratch file, so alignment,
// metadata blocks and early chunk allocation land exactly where the real library of this
// machine puts them. Chunk addresses are then read from the chunk B-trees the library wrote
// to that file (hdf5_chunk_index.hpp), checked against the library's own answers.
#pragma once

#include <cstdint>
#include <vector>

#include "model/file_layout.hpp"
#include "model/model.hpp"
#include "model/workload.hpp"

namespace iosim {

// Chunk dims for a dataset under its settings (explicit dims, or chunk_size along axis 0).
std::vector<uint64_t> effective_chunk_dims(const Dataset& ds, const DatasetSettings& s);

class Hdf5Library;

// `file` laid out by the HDF5 library as `library` makes its objects.
FileLayout hdf5_layout(const FileSession& file, const FileSettings& settings, const Hdf5Library& library);

}  // namespace iosim
