#include "iolib/hdf5_attributes.hpp"

#include <hdf5_hl.h>  // the dimension scales

#include <stdexcept>
#include <string>
#include <vector>

#include "iolib/hdf5_id.hpp"

namespace iosim {

namespace {

// An element type of the attribute's class and size: its datatype message is the program's size.
hid_t element_type(const Attribute& a)
{
    hid_t type = -1;
    if (a.element_class == "integer")
        type = H5Tcopy(H5T_NATIVE_INT);
    else if (a.element_class == "float" && (a.element_bytes == 4 || a.element_bytes == 8))
        type = H5Tcopy(a.element_bytes == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
    else if (a.element_class == "string")
        type = H5Tcopy(H5T_C_S1);
    else
        return H5Tcreate(H5T_OPAQUE, a.element_bytes);
    if (type >= 0 && H5Tget_size(type) != a.element_bytes)
        H5Tset_size(type, a.element_bytes);
    return type;
}

hid_t dataspace(const std::vector<uint64_t>& dims)
{
    if (dims.empty())
        return H5Screate(H5S_SCALAR);
    std::vector<hsize_t> h(dims.begin(), dims.end());
    return H5Screate_simple(static_cast<int>(h.size()), h.data(), nullptr);
}

void make_attribute(hid_t object, const Attribute& a)
{
    H5Id type{check(element_type(a), "the type of attribute " + a.name), H5Tclose};
    H5Id space{check(dataspace(a.dims), "the dataspace of attribute " + a.name), H5Sclose};
    H5Id attr{check(H5Acreate2(object, a.name.c_str(), type.id, space.id, H5P_DEFAULT, H5P_DEFAULT),
                    "creating attribute " + a.name + " of " + a.object),
              H5Aclose};
    hssize_t elements = H5Sget_simple_extent_npoints(space.id);
    std::vector<unsigned char> zeros(static_cast<size_t>(elements) * a.element_bytes);
    if (H5Awrite(attr.id, type.id, zeros.data()) < 0)
        throw std::runtime_error("HDF5 layout: writing attribute " + a.name + " failed");
}

void make(hid_t file, const Attribute& a)
{
    H5Id object{check(H5Oopen(file, a.object.c_str(), H5P_DEFAULT), "opening " + a.object), H5Oclose};
    if (!a.name.empty())
        return make_attribute(object.id, a);
    if (!a.set_scale.empty()) {
        if (H5DSset_scale(object.id, a.set_scale.c_str()) < 0)
            throw std::runtime_error("HDF5 layout: making " + a.object + " a dimension scale failed");
        return;
    }
    H5Id scale{check(H5Oopen(file, a.attach_scale.c_str(), H5P_DEFAULT), "opening " + a.attach_scale), H5Oclose};
    if (H5DSattach_scale(object.id, scale.id, a.axis) < 0)
        throw std::runtime_error("HDF5 layout: attaching " + a.attach_scale + " to " + a.object + " failed");
}

}  // namespace

void make_attributes(hid_t file, const FileSession& session, size_t created)
{
    for (const Attribute& a : session.attributes)
        if (a.after_datasets == created)
            make(file, a);
}

}  // namespace iosim
