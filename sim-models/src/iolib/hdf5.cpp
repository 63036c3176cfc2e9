#include "iolib/hdf5.hpp"

#include "iolib/hdf5_default_fill.hpp"
#include "iolib/hdf5_fill.hpp"
#include "iolib/hdf5_layout.hpp"
#include "iolib/hdf5_transfer.hpp"

namespace iosim {

void Hdf5Library::set_dataset_defaults(DatasetSettings& d, const Platform& p) const
{
    apply_site_default_fill(d, p.hdf5.fills_default_value);
}

FileLayout Hdf5Library::layout(const FileSession& file, const FileSettings& settings) const
{
    return hdf5_layout(file, settings, *this);
}

std::vector<uint64_t> Hdf5Library::chunk_dims(const Dataset& ds, const DatasetSettings& s) const
{
    return effective_chunk_dims(ds, s);
}

// Without collective metadata reads each rank reads the superblock and root group itself.
bool Hdf5Library::ranks_read_metadata(const FileSettings& s) const
{
    return !s.all_coll_metadata_ops;
}

double Hdf5Library::create_datasets_s(const Platform& p, const FileSession& file, const FileLayout& layout,
                                      double collective_s) const
{
    return static_cast<double>(file.datasets.size() + layout.own_datasets.size())
           * (p.hdf5.dataset_create_s + collective_s);
}

bool Hdf5Library::fills_at_allocation(const DatasetSettings& d, bool chunked) const
{
    return filled_at_allocation(d.fill_time, d.fill_value, chunked);
}

void Hdf5Library::allocate(const MpiIoContext& ctx, const LibrarySession& session) const
{
    fill_at_allocation(ctx, session);
}

void Hdf5Library::write(const MpiIoContext& ctx, const WriteCall& call) const
{
    hdf5_write(ctx, call);
}

const IoLibrary& hdf5_library()
{
    static const Hdf5Library library;
    return library;
}

}  // namespace iosim
