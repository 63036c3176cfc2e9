// What an I/O library does to a file session between the program's calls and MPI-IO: its
// defaults for what the workload leaves unsaid, what it sets on the file besides the config,
// where it puts the datasets, what it costs at open, what it writes of its own (fill values,
// flushes) and how it hands a write call on. One implementation per library, each in its own
// file: none.cpp (the program calls MPI-IO or POSIX itself), hdf5.cpp, netcdf4.cpp (HDF5 as
// netCDF-4 drives it), pnetcdf.cpp; io_libraries.cpp is the registry that the workload's `api`
// picks from, as IOR picks a back end from its table (aiori.h: one struct of operations per back end).
// A method's default is that the library adds nothing there.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/file_layout.hpp"
#include "model/model.hpp"
#include "model/workload.hpp"
#include "mpiio/mpi_io.hpp"
#include "selection/pieces.hpp"

namespace iosim {

// One write call on every open instance of a file session, each writing `regions` in its own
// file.
using InstancesCall =
    std::function<WriteCall(bool collective, const std::vector<std::shared_ptr<const Region>>& regions)>;

// A file session open for writing, as its library sees it.
struct LibrarySession {
    const FileSession& file;
    const FileSettings& settings;
    const FileLayout& layout;
    uint64_t writers;  // of one instance
    InstancesCall call;
};

class IoLibrary {
public:
    virtual ~IoLibrary() = default;

    // The model's name (tuner/iotwin/data/io-libraries.yaml `model`).
    virtual const char* name() const = 0;

    // A dataset's and a write call's transfer, and a dataset's fill value, where the workload
    // does not state them.
    virtual bool collective_by_default() const { return true; }
    virtual FillValue default_fill_value() const { return FillValue::fallback; }

    // The config block of the library's own keys (nullptr: none), and its settings of a file of
    // its api from that block (the block's keys checked against the generated table).
    virtual const char* config_block() const { return nullptr; }
    virtual std::shared_ptr<const LibrarySettings> read_settings(const nlohmann::json&) const
    {
        return nullptr;
    }

    // What the library sets on the file before the config's settings, and on each dataset
    // after them (a site's build of the library).
    virtual void set_file_defaults(FileSettings&) const {}
    virtual void set_dataset_defaults(DatasetSettings&, const Platform&) const {}

    // Where the datasets lie in the file (default: back to back from offset 0, no metadata),
    // and a dataset's chunks under its settings, known before the layout is made.
    virtual FileLayout layout(const FileSession& file, const FileSettings& settings) const;
    virtual std::vector<uint64_t> chunk_dims(const Dataset&, const DatasetSettings&) const { return {}; }

    // At open: whether each rank reads the file's metadata itself (else one read serves all),
    // and what creating the file's datasets (the session's and the library's own, in its
    // layout) costs, `collective_s` being one collective of the writers.
    virtual bool ranks_read_metadata(const FileSettings&) const { return false; }
    virtual double create_datasets_s(const Platform&, const FileSession&, const FileLayout&,
                                     double /*collective_s*/) const
    {
        return 0;
    }

    // What the library writes when it allocates the datasets (fill values).
    virtual bool fills_at_allocation(const DatasetSettings&, bool /*chunked*/) const { return false; }
    virtual void allocate(const MpiIoContext&, const LibrarySession&) const {}

    // Flushes of its own, each as a program's flush call costs: once the file is defined,
    // before the program writes; before the file is closed.
    virtual bool flushes_after_define() const { return false; }
    virtual bool flushes_before_close() const { return false; }

    // A program's write call; whether a collective one takes a step of the library's own.
    virtual bool adds_collective_step() const { return false; }
    virtual void write(const MpiIoContext& ctx, const WriteCall& call) const { mpi_io_write(ctx, call); }
};

// The library of a workload's `api`; std::invalid_argument naming it if there is none.
const IoLibrary& io_library(const std::string& api);

// The registry: each `api` and the name of its library.
std::map<std::string, std::string> io_library_models();

// The libraries of the registry, each once, in its order.
std::vector<const IoLibrary*> io_libraries();

}  // namespace iosim
