#include "iolib/netcdf4.hpp"

#include <hdf5.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "iolib/hdf5.hpp"
#include "iolib/netcdf_dimensions.hpp"

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

// The dimension datasets nc_enddef writes before the variables (netcdf_dimensions.hpp). Per
// dataset, the id of its first dimension.
std::vector<int> create_dimension_scales(hid_t file, const FileSession& session, uint64_t& count)
{
    NetcdfDimensions dims = netcdf_dimensions(session);
    for (size_t id = 0; id < dims.lengths.size(); id++)
        create_dimension(file, static_cast<int>(id), dims.lengths[id]);
    count += dims.lengths.size();
    return {dims.first.begin(), dims.first.end()};
}

class Netcdf4Library final : public Hdf5Library {
public:
    const char* name() const override { return "netcdf4"; }

    // A variable's parallel access is independent until nc_var_par_access says otherwise; its
    // fill value is netCDF's (fill mode on, the type's default value).
    bool collective_by_default() const override { return false; }
    FillValue default_fill_value() const override { return FillValue::user; }

    // nc_create_par's file access: collective metadata reads and writes (a config's override them).
    void set_file_defaults(FileSettings& s) const override
    {
        s.all_coll_metadata_ops = true;
        s.coll_metadata_write = true;
    }

    // nc_enddef and nc_close each flush the file: the close waits for the data whatever the
    // platform's close does.
    bool flushes_after_define() const override { return true; }
    bool syncs_at_close() const override { return true; }

    hid_t file_creation() const override
    {
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        H5Pset_obj_track_times(fcpl, 0);
        H5Pset_link_creation_order(fcpl, creation_order);
        H5Pset_attr_creation_order(fcpl, creation_order);
        return fcpl;
    }

    // hdf5set_format_compatibility (libhdf5/hdf5set_format_compatibility.c:81): HDF5 1.8 objects
    void set_file_access(hid_t fapl) const override { H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST); }

    std::vector<int> create_before_datasets(hid_t file, const FileSession& session, uint64_t& objects) const override
    {
        return create_dimension_scales(file, session, objects);
    }

    void set_dataset_creation(hid_t dcpl) const override
    {
        H5Pset_obj_track_times(dcpl, 0);
        H5Pset_attr_creation_order(dcpl, creation_order);
    }

    // The attribute listing a variable's dimension ids, written as the variable is created
    // (write_coord_dimids, called from var_create_dataset).
    void after_dataset_created(hid_t dset, int first_dimension, size_t axes) const override
    {
        std::vector<int> ids(axes);
        for (size_t a = 0; a < axes; a++)
            ids[a] = first_dimension + static_cast<int>(a);
        int_attribute(dset, "_Netcdf4Coordinates", ids);
    }
};

}  // namespace

const IoLibrary& netcdf4_library()
{
    static const Netcdf4Library library;
    return library;
}

}  // namespace iosim
