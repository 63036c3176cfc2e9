#pragma once
#include <hdf5.h>

#include <stdexcept>
#include <string>

namespace iosim {

// Closes an HDF5 id when it goes out of scope.
struct H5Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~H5Id()
    {
        if (id >= 0)
            close(id);
    }
};

// `id`, or runtime_error naming `what` of the layout when HDF5 refused it (a negative id).
inline hid_t check(hid_t id, const std::string& what)
{
    if (id < 0)
        throw std::runtime_error("HDF5 layout: " + what + " failed");
    return id;
}

}  // namespace iosim
