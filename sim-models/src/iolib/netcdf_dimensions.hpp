// The dimensions a netCDF library defines for a session's variables, which the workload does
// not name: one per axis of each distinct variable shape, in the order the shapes first occur
// (variables of one shape share theirs, an assumption). netCDF-4 makes each a dataset of its
// own (netcdf4.cpp), PnetCDF lists them in the file's header (pnetcdf.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/workload.hpp"

namespace iosim {

struct NetcdfDimensions {
    std::vector<uint64_t> lengths;  // every dimension, in definition order
    std::vector<size_t> first;      // per dataset: the index of its first dimension
};

NetcdfDimensions netcdf_dimensions(const FileSession& session);

}  // namespace iosim
