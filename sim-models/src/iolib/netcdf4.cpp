#include "iolib/netcdf4.hpp"

#include <hdf5.h>
#include <hdf5_hl.h>  // the dimension scales

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "iolib/hdf5.hpp"
#include "iolib/hdf5_fill.hpp"
#include "iolib/netcdf_dimensions.hpp"

namespace iosim {

namespace {

// netCDF's hidden name of a dimension without a coordinate variable (DIM_WITHOUT_VARIABLE,
// include/netcdf.h:533), followed by its length in ten digits (nc4_create_dim_wo_var).
constexpr const char* dim_without_variable = "This is a netCDF dimension but not a netCDF variable.";

constexpr unsigned creation_order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;

// The library version the model follows (netcdf4.hpp), as _NCProperties records it.
constexpr const char* netcdf_version = "4.9.0";

hid_t checked(hid_t id, const std::string& what)
{
    if (id < 0)
        throw std::runtime_error("netCDF-4 layout: " + what + " failed");
    return id;
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

std::string dimension_name(size_t id)
{
    return "dim" + std::to_string(id);
}

// nc4_create_dim_wo_var: a contiguous dataset of the dimension's length in big-endian floats,
// marked a dimension scale (H5DSset_scale: its CLASS and NAME) with its netCDF dimension id.
OwnDataset create_dimension(hid_t file, size_t id, uint64_t length)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);  // as parallel HDF5 allocates every dataset
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_attr_creation_order(dcpl, creation_order);
    hsize_t len = length;
    hid_t space = H5Screate_simple(1, &len, &len);
    std::string name = dimension_name(id);
    hid_t dset = checked(H5Dcreate2(file, name.c_str(), H5T_IEEE_F32BE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                         "creating dimension " + name);
    char scale_name[128];
    std::snprintf(scale_name, sizeof scale_name, "%s%10d", dim_without_variable, static_cast<int>(length));
    checked(H5DSset_scale(dset, scale_name), "marking " + name + " a dimension scale");
    int_attribute(dset, "_Netcdf4Dimid", {static_cast<int>(id)});
    OwnDataset placed{H5Dget_offset(dset), 4 * length};
    H5Dclose(dset);
    H5Sclose(space);
    H5Pclose(dcpl);
    return placed;
}

// attach_dimscales: each axis of each variable attached to its dimension's dataset
// (H5DSattach_scale: the variable's DIMENSION_LIST, the dimension's REFERENCE_LIST).
void attach_dimensions(hid_t file, const FileSession& session, const std::vector<int>& first_dimension)
{
    for (size_t i = 0; i < session.datasets.size(); i++) {
        const Dataset& ds = session.datasets[i];
        hid_t var = checked(H5Dopen2(file, ds.name.c_str(), H5P_DEFAULT), "opening " + ds.name);
        for (size_t a = 0; a < ds.dims().size(); a++) {
            std::string name = dimension_name(static_cast<size_t>(first_dimension[i]) + a);
            hid_t dim = checked(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "opening " + name);
            checked(H5DSattach_scale(var, dim, static_cast<unsigned>(a)), "attaching " + name + " to " + ds.name);
            H5Dclose(dim);
        }
        H5Dclose(var);
    }
}

// NC4_write_ncproperties: the root group's _NCProperties, the versions of the libraries that
// wrote the file, a null-terminated string of exactly its text's length.
void write_provenance(hid_t file)
{
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    std::string text = std::string("version=2,netcdf=") + netcdf_version + ",hdf5=" + std::to_string(major) + "."
                       + std::to_string(minor) + "." + std::to_string(release);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    H5Tset_cset(type, H5T_CSET_ASCII);
    H5Tset_size(type, text.size());
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = checked(H5Acreate2(file, "_NCProperties", type, space, H5P_DEFAULT, H5P_DEFAULT), "_NCProperties");
    H5Awrite(attr, type, text.c_str());
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
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

    // nc_enddef flushes the file; nc_close flushes it, then closes it (H5Fflush, H5Fclose).
    bool flushes_after_define() const override { return true; }
    bool flushes_before_close() const override { return true; }

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

    // The dimension datasets nc_enddef writes before the variables (netcdf_dimensions.hpp);
    // per variable, the id of its first dimension.
    std::vector<int> create_before_datasets(hid_t file, const FileSession& session, FileLayout& layout) const override
    {
        NetcdfDimensions dims = netcdf_dimensions(session);
        for (size_t id = 0; id < dims.lengths.size(); id++)
            layout.own_datasets.push_back(create_dimension(file, id, dims.lengths[id]));
        return {dims.first.begin(), dims.first.end()};
    }

    // The dimension datasets have HDF5's default fill value: filled where the site's parallel
    // HDF5 fills such datasets (hdf5_default_fill.hpp), before the variables.
    void allocate(const MpiIoContext& ctx, const LibrarySession& session) const override
    {
        if (ctx.platform.hdf5.fills_default_value)
            for (const OwnDataset& dim : session.layout.own_datasets)
                fill_contiguous(ctx, session, dim.base, dim.bytes);
        Hdf5Library::allocate(ctx, session);
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

    // nc4_rec_write_metadata ends in attach_dimscales; sync_netcdf4_file then writes the
    // provenance, both before nc_enddef's flush.
    void after_datasets_created(hid_t file, const FileSession& session, const std::vector<int>& tags) const override
    {
        attach_dimensions(file, session, tags);
        write_provenance(file);
    }
};

}  // namespace

const IoLibrary& netcdf4_library()
{
    static const Netcdf4Library library;
    return library;
}

}  // namespace iosim
