#include "iolib/hdf5_layout.hpp"

#include <hdf5.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <stdexcept>
#include <string>

#include "iolib/hdf5.hpp"
#include "iolib/hdf5_attributes.hpp"
#include "iolib/hdf5_chunk_index.hpp"
#include "iolib/hdf5_id.hpp"

namespace iosim {

std::vector<uint64_t> effective_chunk_dims(const Dataset& ds, const DatasetSettings& s)
{
    if (!s.chunk_dims.empty() || s.chunk_size == 0)
        return s.chunk_dims;
    auto dims = ds.dims();
    uint64_t row = ds.element_bytes;
    for (size_t a = 1; a < dims.size(); a++)
        row *= dims[a];
    auto chunk = dims;
    chunk[0] = std::clamp<uint64_t>(s.chunk_size / row, 1, dims[0]);
    return chunk;
}

namespace {

hid_t element_type(uint64_t bytes)
{
    switch (bytes) {
    case 1: return H5Tcopy(H5T_NATIVE_UINT8);
    case 2: return H5Tcopy(H5T_NATIVE_UINT16);
    case 4: return H5Tcopy(H5T_NATIVE_UINT32);
    case 8: return H5Tcopy(H5T_NATIVE_UINT64);
    default: return H5Tcreate(H5T_OPAQUE, bytes);
    }
}

hid_t file_access(const FileSettings& s, const Hdf5Library& library)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(fapl);
    library.set_file_access(fapl);
    if (s.align_boundary > 1)
        H5Pset_alignment(fapl, s.align_threshold, s.align_boundary);
    H5Pset_meta_block_size(fapl, s.meta_block_size);
    return fapl;
}

unsigned creation_order_flags(const std::string& name)
{
    if (name == "indexed")
        return H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;
    return name == "tracked" ? H5P_CRT_ORDER_TRACKED : 0;
}

H5F_libver_t earliest_format(const std::string& name)
{
    if (name == "earliest")
        return H5F_LIBVER_EARLIEST;
    if (name == "v18")
        return H5F_LIBVER_V18;
    return name == "v110" ? H5F_LIBVER_V110 : H5F_LIBVER_LATEST;  // later ones: this HDF5's latest
}

// The object formats the program created the file with (a capture's `hdf5_create`), over its
// library's: they decide the size of the metadata before the first dataset.
void set_program_formats(const FileSession& file, hid_t fcpl, hid_t fapl)
{
    if (!file.hdf5_create)
        return;
    const Hdf5Create& f = *file.hdf5_create;
    H5Pset_libver_bounds(fapl, earliest_format(f.libver_low), H5F_LIBVER_LATEST);
    H5Pset_link_creation_order(fcpl, creation_order_flags(f.link_creation_order));
    H5Pset_attr_creation_order(fcpl, creation_order_flags(f.attr_creation_order));
    H5Pset_obj_track_times(fcpl, f.track_times);
}

// Parallel HDF5 allocates all space when the dataset is created, without fill by default.
hid_t dataset_creation(const std::vector<uint64_t>& chunk)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (!chunk.empty()) {
        std::vector<hsize_t> c(chunk.begin(), chunk.end());
        H5Pset_chunk(dcpl, static_cast<int>(c.size()), c.data());
    }
    return dcpl;
}

// Creates the groups on the way to `path` (e.g. /Step#0 for /Step#0/x).
void create_parents(hid_t file, const std::string& path)
{
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        std::string group = path.substr(0, slash);
        if (H5Lexists(file, group.c_str(), H5P_DEFAULT) <= 0)
            H5Gclose(check(H5Gcreate2(file, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), group));
    }
}

// Sets the chunk grid of a chunked dataset's layout; its chunk addresses come once all datasets exist.
void set_chunk_grid(const Dataset& ds, DatasetLayout& out)
{
    auto dims = ds.dims();
    out.chunk_bytes = ds.element_bytes;
    for (size_t a = 0; a < dims.size(); a++) {
        out.chunk_grid.push_back((dims[a] + out.chunk_dims[a] - 1) / out.chunk_dims[a]);
        out.chunk_bytes *= out.chunk_dims[a];
    }
}

uint64_t chunk_count(const DatasetLayout& d)
{
    uint64_t n = 1;
    for (uint64_t chunks : d.chunk_grid)
        n *= chunks;
    return n;
}

uint64_t chunk_address(hid_t dset, const DatasetLayout& d, uint64_t chunk, const std::string& name)
{
    std::vector<hsize_t> coord(d.chunk_grid.size());
    for (size_t a = coord.size(); a-- > 0;) {
        coord[a] = (chunk % d.chunk_grid[a]) * d.chunk_dims[a];
        chunk /= d.chunk_grid[a];
    }
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    unsigned mask = 0;
    check(H5Dget_chunk_info_by_coord(dset, coord.data(), &mask, &addr, &size), "chunk address of " + name);
    return addr;
}

// The library's answer for every chunk. HDF5 1.10 iterates the chunk B-tree from its start for
// each query, so this costs O(n^2) for n chunks.
std::vector<uint64_t> query_chunk_addresses(hid_t dset, const DatasetLayout& d, const std::string& name)
{
    std::vector<uint64_t> addresses(chunk_count(d));
    for (uint64_t c = 0; c < addresses.size(); c++)
        addresses[c] = chunk_address(dset, d, c, name);
    return addresses;
}

bool agrees_with_library(hid_t dset, const DatasetLayout& d, const std::vector<uint64_t>& addresses,
                         const std::string& name)
{
    const uint64_t n = addresses.size();
    for (uint64_t c : {n - 1, n / 3, 2 * n / 3})
        if (chunk_address(dset, d, c, name) != addresses[c])
            return false;
    return true;
}

// The chunk addresses from the B-tree leaves in the file, in O(n), when they hold every chunk
// and agree with the library at the first, the last and two chunks in between; else queried.
std::vector<uint64_t> read_chunk_addresses(hid_t dset, const ChunkBtreeLeaves& leaves, const DatasetLayout& d,
                                           const std::string& name)
{
    auto addresses = leaves.chunk_addresses(chunk_address(dset, d, 0, name),
                                            ChunkGrid{d.chunk_dims, d.chunk_grid, d.chunk_bytes});
    if (!addresses.empty() && agrees_with_library(dset, d, addresses, name))
        return addresses;
    std::cerr << "iosim: the chunk B-tree of " << name << " was not read from the file; querying HDF5 per chunk\n";
    return query_chunk_addresses(dset, d, name);
}

// A dataset as the application creates it through `library` (`tag`: what the library made for
// it before, Hdf5Library::create_before_datasets).
DatasetLayout create_dataset(hid_t file, const Dataset& ds, const DatasetSettings& s, int tag,
                             const Hdf5Library& library)
{
    DatasetLayout out;
    out.chunk_dims = effective_chunk_dims(ds, s);
    auto dims = ds.dims();
    std::vector<hsize_t> h(dims.begin(), dims.end());
    create_parents(file, ds.name);
    H5Id space{check(H5Screate_simple(static_cast<int>(h.size()), h.data(), nullptr), "dataspace"), H5Sclose};
    H5Id type{check(element_type(ds.element_bytes), "datatype"), H5Tclose};
    H5Id dcpl{dataset_creation(out.chunk_dims), H5Pclose};
    library.set_dataset_creation(dcpl.id);
    H5Id dset{check(H5Dcreate2(file, ds.name.c_str(), type.id, space.id, H5P_DEFAULT, dcpl.id, H5P_DEFAULT),
                    "creating " + ds.name),
              H5Dclose};
    library.after_dataset_created(dset.id, tag, h.size());
    if (out.chunk_dims.empty())
        out.base = H5Dget_offset(dset.id);
    else
        set_chunk_grid(ds, out);
    return out;
}

// Once every dataset exists: a flush between creations would release the space aggregators
// and move the later objects away from where the application's library puts them.
void read_all_chunk_addresses(hid_t file, const std::string& path, const FileSession& session, FileLayout& layout)
{
    auto chunked = [](const DatasetLayout& d) { return !d.chunk_dims.empty(); };
    if (std::none_of(layout.datasets.begin(), layout.datasets.end(), chunked))
        return;
    check(H5Fflush(file, H5F_SCOPE_LOCAL), "flushing " + path);
    ChunkBtreeLeaves leaves(path);
    for (size_t i = 0; i < layout.datasets.size(); i++) {
        auto& d = layout.datasets[i];
        const std::string& name = session.datasets[i].name;
        if (!chunked(d) || chunk_count(d) == 0)  // an empty extent (netCDF's unlimited
            continue;                               // dimension before its first record)
        H5Id dset{check(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "opening " + name), H5Dclose};
        d.chunk_addr = read_chunk_addresses(dset.id, leaves, d, name);
    }
}

uint64_t data_end(const DatasetLayout& d, uint64_t bytes)
{
    if (d.chunk_dims.empty())
        return d.base + bytes;
    if (d.chunk_addr.empty())  // chunked with an empty extent: no chunk allocated
        return 0;
    return *std::max_element(d.chunk_addr.begin(), d.chunk_addr.end()) + d.chunk_bytes;
}

std::string scratch_path();

// What the close allocates beyond the data (attributes that outgrow their object header, a
// global heap collection for variable-length ones) ends the file: HDF5 truncates a closed
// file to its end of allocated space.
void add_metadata_written_at_close(const std::string& path, FileLayout& layout)
{
    struct stat closed {};
    if (stat(path.c_str(), &closed) != 0)
        throw std::runtime_error("HDF5 layout: reading the size of " + path + " failed");
    uint64_t size = static_cast<uint64_t>(closed.st_size);
    if (size <= layout.end_of_file)
        return;
    layout.metadata_bytes += size - layout.end_of_file;
    layout.end_of_file = size;
}

}  // namespace

void place_datasets(hid_t h5, const std::string& path, const FileSession& file, const FileSettings& settings,
                    const Hdf5Library& library, FileLayout& layout);

FileLayout hdf5_layout(const FileSession& file, const FileSettings& settings, const Hdf5Library& library)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Id fapl{file_access(settings, library), H5Pclose};
    H5Id fcpl{library.file_creation(), H5Pclose};
    set_program_formats(file, fcpl.id, fapl.id);
    std::string path = scratch_path();
    FileLayout layout;
    {
        H5Id h5{check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.id, fapl.id), "creating " + path), H5Fclose};
        place_datasets(h5.id, path, file, settings, library, layout);
    }
    add_metadata_written_at_close(path, layout);
    unlink(path.c_str());
    return layout;
}

namespace {

// A sparse scratch file on tmpfs: only the metadata blocks are ever written, and tmpfs takes
// sparse files of any size (ext4 stops at 16 TiB).
std::string scratch_path()
{
    static std::atomic<int> counter{0};
    const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/iosim-layout-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".h5";
}

}  // namespace

void place_datasets(hid_t h5, const std::string& path, const FileSession& file, const FileSettings& settings,
                    const Hdf5Library& library, FileLayout& layout)
{
    std::vector<int> tags = library.create_before_datasets(h5, file, layout);
    make_attributes(h5, file, 0);
    for (size_t i = 0; i < file.datasets.size(); i++) {
        layout.datasets.push_back(create_dataset(h5, file.datasets[i], settings.datasets[i], tags[i], library));
        make_attributes(h5, file, i + 1);
    }
    library.after_datasets_created(h5, file, tags);
    read_all_chunk_addresses(h5, path, file, layout);
    uint64_t data_bytes = 0;
    for (size_t i = 0; i < file.datasets.size(); i++) {
        const auto& ds = file.datasets[i];
        const auto& d = layout.datasets[i];
        uint64_t bytes = d.chunk_dims.empty() ? ds.bytes() : d.chunk_bytes * d.chunk_addr.size();
        data_bytes += bytes;
        layout.end_of_file = std::max(layout.end_of_file, data_end(d, bytes));
        layout.metadata_entries += 1 + d.chunk_addr.size() / 64;  // header, plus chunk index nodes
    }
    layout.metadata_entries += 3 + layout.own_datasets.size();  // superblock, root group, its heap
    layout.metadata_bytes = layout.end_of_file > data_bytes ? layout.end_of_file - data_bytes : 0;
}

}  // namespace iosim
