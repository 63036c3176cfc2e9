// Parallel HDF5 (1.10) as a program with HDF5's own defaults drives it: its layout, read from
// the library itself (hdf5_layout.hpp); the superblock every rank reads at open unless metadata
// reads are collective; a collective step per dataset created; the fill values it writes when
// it allocates a dataset (hdf5_fill.hpp) and a site's default fill (hdf5_default_fill.hpp); its
// write calls handed to MPI-IO (hdf5_transfer.hpp). A library on HDF5 (netCDF-4) derives from
// it and changes how the file's objects are made (the hooks below, which hdf5_layout calls).
#pragma once

#include <hdf5.h>

#include <vector>

#include "iolib/io_library.hpp"

namespace iosim {

class Hdf5Library : public IoLibrary {
public:
    const char* name() const override { return "hdf5"; }
    void set_dataset_defaults(DatasetSettings& d, const Platform& p) const override;
    FileLayout layout(const FileSession& file, const FileSettings& settings) const override;
    std::vector<uint64_t> chunk_dims(const Dataset& ds, const DatasetSettings& s) const override;
    bool ranks_read_metadata(const FileSettings& s) const override;
    double create_datasets_s(const Platform& p, const FileSession& file, const FileLayout& layout,
                             double collective_s) const override;
    bool fills_at_allocation(const DatasetSettings& d, bool chunked) const override;
    void allocate(const MpiIoContext& ctx, const LibrarySession& session) const override;
    bool adds_collective_step() const override { return true; }
    void write(const MpiIoContext& ctx, const WriteCall& call) const override;

    // How the file's objects are made: the file's creation and access properties; the datasets
    // the library makes of its own before the session's (each in the layout's own_datasets),
    // with a tag per session dataset (-1: none) handed back when the dataset is made; a
    // dataset's creation properties; what follows its creation; what the library writes once
    // every dataset exists, before the program writes.
    virtual hid_t file_creation() const { return H5Pcreate(H5P_FILE_CREATE); }
    virtual void set_file_access(hid_t /*fapl*/) const {}
    virtual std::vector<int> create_before_datasets(hid_t /*file*/, const FileSession& session,
                                                    FileLayout& /*layout*/) const
    {
        return std::vector<int>(session.datasets.size(), -1);
    }
    virtual void set_dataset_creation(hid_t /*dcpl*/) const {}
    virtual void after_dataset_created(hid_t /*dset*/, int /*tag*/, size_t /*axes*/) const {}
    virtual void after_datasets_created(hid_t /*file*/, const FileSession&, const std::vector<int>& /*tags*/) const {}
};

const IoLibrary& hdf5_library();

}  // namespace iosim
