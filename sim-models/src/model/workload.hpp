// A workload as the simulator holds it (sim-models/WORKLOAD.md): files, datasets, and who
// writes which block of each dataset; input/workload.hpp reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iosim {

// When HDF5 writes fill values (H5Pset_fill_time); the application's choice, a config's over it.
enum class FillTime { ifset, alloc, never };

// The dataset's fill value (H5Pfill_value_defined): with fill time ifset, whether HDF5 fills.
enum class FillValue { user, fallback, undefined };  // fallback: HDF5's default (none set)

struct Dataset {
    std::string name;
    uint64_t element_bytes = 1;
    std::vector<uint64_t> grid;                  // writers along each axis
    std::vector<std::vector<uint64_t>> extents;  // block extent of each grid slot, per axis
    std::vector<std::vector<uint64_t>> starts;   // first index of each grid slot, per axis
    std::vector<uint64_t> chunk_dims;            // the application's own chunking (empty: none)
    bool collective = true;
    FillTime fill_time = FillTime::ifset;        // the application's own (HDF5's default)
    FillValue fill_value = FillValue::fallback;  // the application's own (none set)

    std::vector<uint64_t> dims() const;
    uint64_t bytes() const;
    uint64_t writers() const;
    // Block of writer w: start and count per axis (row-major unravel, last axis fastest).
    void block(uint64_t writer, std::vector<uint64_t>& start, std::vector<uint64_t>& count) const;
};

// HDF5's H5Sselect_hyperslab(start, stride, count, block) of writers first + k*step (k <
// writers), writer k's start moved by k * start_step (WORKLOAD.md `runs`).
struct HyperslabRun {
    uint64_t first_writer = 0, writers = 1, writer_step = 1;
    std::vector<uint64_t> start, start_step, count, stride, block;
};

// One dataset's selection in one call (WORKLOAD.md `calls`): a decomposition placed at
// `origin`, or hyperslab runs. Kept as written: its pieces are made by whoever needs them.
struct Selection {
    bool grid = false;
    Dataset decomposition;  // with `grid`: its blocks, writer w's at unravel(w)
    std::vector<uint64_t> origin;
    std::vector<HyperslabRun> runs;
};

// One I/O call of a file session, as a program made it (WORKLOAD.md `calls`): a write of one
// or several datasets (H5Dwrite, H5Dwrite_multi) with every writer's selection, or a flush.
// With `times` > 1 the call is made that many times, repetition k's grid selections moved by
// k * origin_step, each after compute_between_s (WORKLOAD.md `repeat`).
struct IoCall {
    bool flush = false;
    bool collective = true;
    double compute_before_s = 0;           // the slowest rank's computation before the call
    std::vector<size_t> datasets;          // indices into the session's datasets
    std::vector<Selection> selections;     // per listed dataset
    uint64_t times = 1;
    std::vector<long long> origin_step;
    double compute_between_s = 0;

    // Repetition k's origin of selection i (k < times).
    std::vector<uint64_t> origin_at(size_t i, uint64_t k) const;
};

enum class FileMode { shared, per_rank, groups };

// The program's own HDF5 file access properties (WORKLOAD.md `hdf5_access`); unset: its
// library's.
struct Hdf5Access {
    std::optional<bool> coll_metadata_write;
    std::optional<bool> all_coll_metadata_ops;
};

// The HDF5 object formats the program created the file with (WORKLOAD.md `hdf5_create`, the
// schema's names); absent: its library's.
struct Hdf5Create {
    std::string libver_low;           // the earliest format: earliest, v18, v110, v112, v114
    std::string link_creation_order;  // untracked, tracked, indexed
    std::string attr_creation_order;
    bool track_times = true;
};

// An attribute the program wrote, as a capture records it (WORKLOAD.md `attributes`): one of
// its own (`name`), or a dimension-scale call of HDF5's high-level library (`set_scale`,
// `attach_scale`), made after the session's first `after_datasets` datasets.
struct Attribute {
    std::string object;  // "/" or a dataset of the session
    size_t after_datasets = 0;
    std::string name;
    std::string element_class;  // integer, float, string, opaque
    uint64_t element_bytes = 0;
    std::vector<uint64_t> dims;  // empty: a scalar
    std::string set_scale;       // H5DSset_scale's name
    std::string attach_scale;    // H5DSattach_scale's dimension scale, at axis `axis`
    unsigned axis = 0;
};

struct FileSession {
    std::string name;
    FileMode mode = FileMode::shared;
    int groups = 1;
    bool create = true;
    std::string api = "hdf5";  // the I/O library it is written through (iolib/io_library.hpp)
    double compute_before_s = 0;
    bool one_call = false;  // one multi-dataset write call instead of one per dataset
    int flushes = 0;
    Hdf5Access hdf5_access;  // what the program set on its file access list, where stated
    std::optional<Hdf5Create> hdf5_create;  // the formats it created the file with, where stated
    std::vector<Dataset> datasets;
    std::vector<Attribute> attributes;  // in the order written, where a capture recorded them
    std::vector<IoCall> calls;  // empty: one call per dataset of its decomposition (or one-call)

    int instances(int ranks) const;         // how many files this session opens
    int writers_per_instance(int ranks) const;
};

struct Workload {
    std::string name;
    int ranks = 1;
    int ranks_per_node = 0;  // 0: the platform's cores per node
    bool openmpi = false;    // `mpi: openmpi`: it runs under Open MPI (OMPIO unless io=romio321)
    bool writes_timed = false;  // `timed: writes`: its rate is over the write phases alone
    std::vector<FileSession> files;
};

}  // namespace iosim
