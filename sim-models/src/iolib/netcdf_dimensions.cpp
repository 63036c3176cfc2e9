#include "iolib/netcdf_dimensions.hpp"

namespace iosim {

NetcdfDimensions netcdf_dimensions(const FileSession& session)
{
    NetcdfDimensions out;
    std::vector<std::vector<uint64_t>> shapes;  // distinct variable shapes, in order
    std::vector<size_t> shape_first;            // the index of each shape's first dimension
    for (const Dataset& ds : session.datasets) {
        auto dims = ds.dims();
        size_t s = 0;
        while (s < shapes.size() && shapes[s] != dims)
            s++;
        if (s == shapes.size()) {
            shapes.push_back(dims);
            shape_first.push_back(out.lengths.size());
            out.lengths.insert(out.lengths.end(), dims.begin(), dims.end());
        }
        out.first.push_back(shape_first[s]);
    }
    return out;
}

}  // namespace iosim
