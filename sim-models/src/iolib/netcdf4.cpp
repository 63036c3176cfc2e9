#include "iolib/netcdf4.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>


namespace iosim {

namespace {

// netCDF's hidden name of a dimension without a coordinate variable (DIM_WITHOUT_VARIABLE,
// include/netcdf.h:533), followed by its length in ten digits (nc4_create_dim_wo_var).
constexpr const char* dim_without_variable = "This is a netCDF dimension but not a netCDF variable.";

constexpr unsigned creation_order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;

hid_t checked(hid_t id, const std::string& what)
{
    if (id < 0)
        throw std::runtime_error("netCDF-4 layout: " + what + " failed");
    return id;
}

// A fixed-length, null-terminated string attribute, as H5DSset_scale writes CLASS and NAME.
void string_attribute(hid_t object, const char* name, const std::string& value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, value.size() + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = checked(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), name);
    H5Awrite(attr, type, value.c_str());
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
}

void int_attribute(hid_t object, const char* name, const std::vector<int>& values)
{
    hsize_t n = values.size();
    hid_t space = values.size() == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
    hid_t attr = checked(H5Acreate2(object, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT), name);
    H5Awrite(attr, H5T_NATIVE_INT, values.data());
    H5Aclose(attr);
    H5Sclose(space);
}

// nc4_create_dim_wo_var: a contiguous dataset of the dimension's length in big-endian floats,
// marked a dimension scale (H5DSset_scale: CLASS and NAME) with its netCDF dimension id.
void create_dimension(hid_t file, int id, uint64_t length)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);  // as parallel HDF5 allocates every dataset
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_attr_creation_order(dcpl, creation_order);
    hsize_t len = length;
    hid_t space = H5Screate_simple(1, &len, &len);
    std::string name = "dim" + std::to_string(id);
    hid_t dset = checked(H5Dcreate2(file, name.c_str(), H5T_IEEE_F32BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                         "creating dimension " + name);
    char scale_name[128];
    std::snprintf(scale_name, sizeof scale_name, "%s%10d", dim_without_variable, static_cast<int>(length));
    string_attribute(dset, "CLASS", "DIMENSION_SCALE");
    string_attribute(dset, "NAME", scale_name);
    int_attribute(dset, "_Netcdf4Dimid", {id});
    H5Dclose(dset);
    H5Sclose(space);
    H5Pclose(dcpl);
}

}  // namespace

void apply_netcdf4_file_access(FileSettings& s)
{
    s.all_coll_metadata_ops = true;
    s.coll_metadata_write = true;
}

hid_t netcdf4_file_creation()
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_obj_track_times(fcpl, 0);
    H5Pset_link_creation_order(fcpl, creation_order);
    H5Pset_attr_creation_order(fcpl, creation_order);
    return fcpl;
}

void set_netcdf4_file_access(hid_t fapl)
{
    // hdf5set_format_compatibility (libhdf5/hdf5set_format_compatibility.c:81): HDF5 1.8 objects
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
}

void set_netcdf4_variable_creation(hid_t dcpl)
{
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_attr_creation_order(dcpl, creation_order);
}

void write_netcdf4_coordinates(hid_t dset, int first_dimension, size_t axes)
{
    std::vector<int> ids(axes);
    for (size_t a = 0; a < axes; a++)
        ids[a] = first_dimension + static_cast<int>(a);
    int_attribute(dset, "_Netcdf4Coordinates", ids);
}

NetcdfDimensions create_dimension_scales(hid_t file, const FileSession& session)
{
    NetcdfDimensions out;
    std::vector<std::vector<uint64_t>> shapes;  // distinct variable shapes, in order
    std::vector<int> shape_first;               // the id of each shape's first dimension
    for (const Dataset& ds : session.datasets) {
        auto dims = ds.dims();
        size_t s = 0;
        while (s < shapes.size() && shapes[s] != dims)
            s++;
        if (s == shapes.size()) {
            shapes.push_back(dims);
            shape_first.push_back(out.count);
            for (uint64_t length : dims)
                create_dimension(file, out.count++, length);
        }
        out.first.push_back(shape_first[s]);
    }
    return out;
}

}  // namespace iosim
