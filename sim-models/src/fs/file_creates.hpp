// Creating the files of one open: a shared file is one create; a file-per-process (or
// per-group) session creates N files, each by its own rank at the same moment. The metadata
// servers serve them concurrently (a Lustre MDS runs many service threads; DNE spreads a job's
// files over its MDTs, `metadata_servers`), so the creates take one create's latency
// (`create_s`, plus `create_per_stripe_s` per OST object of the layout) unless the servers'
// throughput binds: N / (`mds_create_per_s` x `metadata_servers`). mdtest's file creates on one
// MDS scale with client threads up to a plateau, almost 15,000 creates/s at 240 threads (Dell
// white paper "Dell Storage for HPC with Intel Enterprise Edition for Lustre software",
// Figure 12: Lustre 2.5, one MDS, 15K RPM MDT drives); a platform without the rate has no such
// bound (a single create costs what it did).
#pragma once

#include <cstdint>

#include "model/model.hpp"

namespace iosim {

// Seconds to create `files` files of `objects` OST objects each, issued at once.
double create_files_s(const FileSystem& fs, uint64_t files, int objects);

}  // namespace iosim
