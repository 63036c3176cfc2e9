#include "iolib/io_library.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "iolib/hdf5.hpp"
#include "iolib/netcdf4.hpp"
#include "iolib/none.hpp"
#include "iolib/pnetcdf.hpp"

namespace iosim {

FileLayout IoLibrary::layout(const FileSession& file, const FileSettings&) const
{
    FileLayout layout;
    for (const auto& ds : file.datasets) {
        DatasetLayout d;
        d.base = layout.end_of_file;
        layout.end_of_file += ds.bytes();
        layout.datasets.push_back(d);
    }
    return layout;
}

namespace {

// The registry: every `api` of the workload format (WORKLOAD.md) and the library that writes
// it.
const std::pair<const char*, const IoLibrary& (*)()> libraries[] = {
    {"hdf5", hdf5_library}, {"netcdf4", netcdf4_library}, {"mpiio", no_library},
    {"posix", no_library},  {"pnetcdf", pnetcdf_library},
};

}  // namespace

const IoLibrary& io_library(const std::string& api)
{
    for (const auto& [name, library] : libraries)
        if (api == name)
            return library();
    throw std::invalid_argument("api " + api + ": no I/O library of that name (hdf5, netcdf4, mpiio, posix, pnetcdf)");
}

std::vector<const IoLibrary*> io_libraries()
{
    std::vector<const IoLibrary*> out;
    for (const auto& entry : libraries)
        if (std::find(out.begin(), out.end(), &entry.second()) == out.end())
            out.push_back(&entry.second());
    return out;
}

std::map<std::string, std::string> io_library_models()
{
    std::map<std::string, std::string> models;
    for (const auto& [name, library] : libraries)
        models[name] = library().name();
    return models;
}

}  // namespace iosim
