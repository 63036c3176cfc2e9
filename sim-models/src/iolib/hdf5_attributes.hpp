#pragma once
#include <hdf5.h>

#include <cstddef>

#include "model/workload.hpp"

namespace iosim {

// The attributes a capture recorded after the session's first `created` datasets
// (FileSession::attributes), made again in `file` in their order: HDF5 writes them, and the
// metadata they take (object header space, a global heap for dimension scales' references),
// as it wrote the program's.
void make_attributes(hid_t file, const FileSession& session, size_t created);

}  // namespace iosim
