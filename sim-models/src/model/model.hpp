// The simulator's vocabulary: platform parameters, per-file settings, and the plan of phases
// that the planner produces and a backend times. Pure data, no behaviour.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/posix_calls.hpp"
#include "model/workload.hpp"

namespace iosim {

enum class RouterSide { none, client, server };
enum class RomioDriver { generic, lustre, gpfs };
// ROMIO's romio_cb_write and romio_ds_write hints.
enum class Hint { automatic, enable, disable };
// The MPI-IO that writes a file: ROMIO (MPICH's, or Open MPI's romio321) or Open MPI's OMPIO.
enum class MpiIo { romio, ompio };
// OMPIO's collective component (MCA fcoll); automatic: its own selection. Not modelled:
// dynamic (superseded by dynamic_gen2, chosen by no default).
enum class Fcoll { automatic, vulcan, dynamic_gen2, two_phase, individual };

struct Compute {
    int cores_per_node = 1;
    double nic_Bps = 0;  // per node injection bandwidth
};

struct Network {
    double mpi_fabric_Bps = 0;      // aggregate bandwidth of node-to-node traffic
    double storage_fabric_Bps = 0;  // aggregate bandwidth between compute and storage
    double collective_step_s = 0;   // one step of a log2(P) collective
    double oversubscribed_step_s = 0;  // one step where a node runs more ranks than cores (0: as above)
    double memcpy_Bps = 0;          // local copy in the shuffle (ranks on one node)
    double first_touch_Bps = 0;     // writing a buffer's pages the first time (0: not charged)
    uint64_t first_touch_warm_bytes = 0;  // a buffer's first bytes, which come warm
};

// The router / I/O-node layer: client side (BG/P I/O nodes) or server side (LNET routers).
struct Routers {
    RouterSide side = RouterSide::none;
    int count = 0;
    double Bps = 0;
    int nodes_per_router = 1;     // client side: compute nodes behind one router (a BG/P pset)
    int min_partition_nodes = 0;  // client side: smallest partition a job runs in
    int job_nodes = 0, job_routers = 0;  // client side: the job's nodes and the routers they span
};

// An OST pool (lfs pool): its targets are storage targets [first, first + targets), on the
// first `servers` OSSs.
struct Pool {
    std::string name;
    int first = 0;
    int targets = 1;
    double target_Bps = 0;
    int servers = 1;
};

// What stands between a target and its drives (fs/partial_stripe_writes.hpp).
enum class TargetRaid {
    none,          // flash devices, or drives that are targets themselves
    parity,        // parity RAID groups a server assembles from raw drives, no write-back cache
    cached_array,  // an array controller's RAID volumes behind its write-back cache
};

struct FileSystem {
    bool gpfs = false;
    int servers = 1;    // OSSs (GPFS: NSD servers)
    int targets = 1;    // OSTs of the file system's own pool (pools[0])
    double server_Bps = 0;
    double target_Bps = 0;
    // A target written by n client nodes: B (f + (1 - f) / (1 + d (n - 1))), see degraded_bandwidth.
    double degradation = 0;
    double degradation_floor = 0;
    uint64_t rpc_max_bytes = 1 << 20;
    double rpc_overhead_s = 0;
    double lock_conflict_s = 0;
    bool expanded_grants = false;  // Lustre: a grant covers its object's unwritten units (extent_locks.hpp)
    TargetRaid target_raid = TargetRaid::none;
    double read_modify_write_passes = 2;  // parity: passes of the drives a partial-stripe write takes
    double cache_write_s = 0;             // cached_array: a write acknowledged from the controller's cache
    uint64_t lock_block_bytes = 0;  // GPFS block; 0: the Lustre stripe
    double token_ops_per_s = 0;     // GPFS: token requests a file's token server serves a second (0: none)
    int max_stripe_count = 1;
    double create_s = 0;            // file create at the metadata server
    double create_per_stripe_s = 0;
    double mds_create_per_s = 0;    // creates one metadata server serves a second (0: unbounded)
    int metadata_servers = 1;       // MDSs (one MDT each) a job's files spread over
    double open_s = 0;              // one rank's independent open / metadata read
    double close_s = 0;
    double metadata_io_s = 0;       // one small independent metadata write or read
    // Storage targets are numbered: the OSTs of each pool in turn (pools[0] the file system's
    // own `targets`, then its other pools), then the MDTs that hold Data-on-MDT extents, each
    // behind a server of its own after the OSSs (lustre_layout.hpp).
    std::vector<Pool> pools;
    int osts = 1;                   // OSTs of every pool
    int mdts = 0;                   // MDTs that take Data-on-MDT (0: none)
    double mdt_Bps = 0;
    uint64_t dom_max_bytes = 0;     // the largest Data-on-MDT component an MDT takes
};

// The client's write-back cache (a Lustre client, or a kernel page cache); 0 turns it off.
struct ClientCache {
    uint64_t osc_dirty_bytes = 0;   // dirty data one client node may hold per OSC (max_dirty_mb)
    double process_write_Bps = 0;   // what one client process can copy into the cache and send
    double write_call_s = 0;        // one write call of a process: the library stack and the system call
    double node_write_Bps = 0;      // what one client node's client can send
    // What one node's client takes into one file while many of its processes write it (a
    // client that lets one write of a file in at a time: contended_writes.hpp); 0: not modelled.
    double contended_write_Bps = 0;
    double cached_read_Bps = 0;     // what one process reads of pages the cache holds; 0: read from the targets
    double locked_write_s = 0;      // one write call under the client's range lock (client_range_locks.hpp); 0: none
    uint64_t page_bytes = 4096;     // the client's page: the unit of its range locks
    bool close_flushes = true;      // a file's close waits for its cached writes
    // Dirty pages stay in the cache until a flush writes them back (a kernel page cache, not
    // Lustre's OSC, which sends an RPC as soon as it fills): a write over them changes them
    // there, and the targets take them once (fs/dirty_pages.hpp).
    bool holds_dirty_pages = false;
    // Such a cache's write-back of one folio, besides its bytes (dirty_pages.hpp: a folio is as
    // large as the write that made it, from a page to `max_folio_bytes`); 0: none.
    double writeback_folio_s = 0;
    uint64_t max_folio_bytes = 4096;
};

struct Hdf5Costs {
    double dataset_create_s = 0;
    bool fills_default_value = false;  // hdf5_default_fill.hpp
};

// How the generic and GPFS drivers pick aggregators untuned (the Lustre driver: stripe count x
// co-ratio): one per node, one per stripe, or ROMIO's Blue Gene rule of N per full pset.
struct CbNodesRule {
    enum class Kind { nodes, stripe_count, per_router } kind = Kind::nodes;
    int per_router = 0;
};

// Where a collective write's aggregators sit (mpiio/aggregator_placement.hpp).
enum class AggregatorPlacement { packed, spread };

struct SiteDefaults {
    RomioDriver driver = RomioDriver::generic;
    CbNodesRule default_cb_nodes;
    AggregatorPlacement aggregator_placement = AggregatorPlacement::packed;  // aggregator_placement.hpp
};

struct Platform {
    std::string name;
    Compute compute;
    Network network;
    Routers routers;
    FileSystem fs;
    ClientCache cache;
    Hdf5Costs hdf5;
    SiteDefaults site;
};

// Every storage target: the OSTs of every pool, then the MDTs (Data-on-MDT).
inline int storage_targets(const Platform& p)
{
    return p.fs.osts + p.fs.mdts;
}

// Every storage server: the OSSs, then one MDS per MDT.
inline int storage_servers(const Platform& p)
{
    return p.fs.servers + p.fs.mdts;
}

// The pool an OST belongs to (pools are few).
inline const Pool& pool_of_target(const Platform& p, int target)
{
    for (const Pool& pool : p.fs.pools)
        if (target < pool.first + pool.targets)
            return pool;
    return p.fs.pools.back();
}

// A pool's target i on its server i mod servers: a file's stripe objects, on consecutive
// targets, land on different servers, as Lustre's object allocator spreads them. An MDT is on
// its own MDS.
inline int server_of_target(const Platform& p, int target)
{
    if (target >= p.fs.osts)
        return p.fs.servers + (target - p.fs.osts);
    const Pool& pool = pool_of_target(p, target);
    return (target - pool.first) % pool.servers;
}

// A target's own write bandwidth, before interleaved streams degrade it.
inline double target_bandwidth(const Platform& p, int target)
{
    return target >= p.fs.osts ? p.fs.mdt_Bps : pool_of_target(p, target).target_Bps;
}

// Server-side routers are shared evenly by the servers.
inline int router_of_server(const Platform& p, int server)
{
    return static_cast<int>(static_cast<long long>(server) * p.routers.count / storage_servers(p));
}

// Client-side routers (I/O nodes): the job's nodes are spread evenly over the routers of its
// partition (place_job), consecutive nodes on one router.
inline int router_of_node(const Platform& p, int node)
{
    if (p.routers.job_routers > 0)
        return static_cast<int>(static_cast<long long>(node) * p.routers.job_routers / p.routers.job_nodes);
    return std::min(p.routers.count - 1, node / p.routers.nodes_per_router);
}

struct DatasetSettings {
    std::vector<uint64_t> chunk_dims;  // empty: contiguous
    uint64_t chunk_size = 0;           // target bytes per chunk (0: unset)
    bool collective = true;
    bool transfer_forced = false;  // the config sets transfer_mode: it overrides the program's calls
    FillTime fill_time = FillTime::ifset;  // HDF5 default
    FillValue fill_value = FillValue::fallback;  // the application's (no config key sets it)
};

// One component of a progressive file layout (lfs setstripe -E ...): where the bytes up to its
// end lie (lustre_layout.hpp).
struct LayoutComponent {
    uint64_t end = UINT64_MAX;  // exclusive; UINT64_MAX: to the end of the file
    int stripe_count = 1;       // on `pool`'s targets, within the file system's limit
    uint64_t stripe_size = 1 << 20;
    int pool = 0;               // index into FileSystem::pools
    bool mdt = false;           // Data-on-MDT: on the file's metadata target
};

// An I/O library's own settings of a file, from its block of the config: each library's model
// defines and reads its own (IoLibrary::read_settings, iolib/).
struct LibrarySettings {
    virtual ~LibrarySettings() = default;
    // The settings as words, for the keys of what is computed from them (the layout cache).
    virtual void append_words(std::vector<uint64_t>& words) const = 0;
};

struct FileSettings {
    // What the MPI-IO layer sees of the layout (ROMIO's striping_factor and striping_unit):
    // the plain layout's, or a progressive layout's last component (lustre_layout.hpp).
    int stripe_count = 1;
    uint64_t stripe_size = 1 << 20;
    int stripe_offset = -1;
    std::vector<LayoutComponent> components;  // the file's layout, in file order
    Hint cb_write = Hint::automatic;
    int cb_nodes = 0;  // 0: driver default
    std::string cb_config_list = "*:1";
    uint64_t cb_buffer_size = 16 << 20;
    Hint ds_write = Hint::automatic;
    uint64_t ind_wr_buffer_size = 512 << 10;
    int co_ratio = 1;
    uint64_t align_threshold = 1;
    uint64_t align_boundary = 1;
    uint64_t meta_block_size = 2048;
    bool coll_metadata_write = false;
    bool all_coll_metadata_ops = false;
    bool gpfs_largeblock = false;
    int bgl_nodes_pset = 0;  // BG/P driver: aggregators per full pset (0: the platform's default)
    MpiIo mpi_io = MpiIo::romio;       // the workload's MPI and the config's openmpi.io
    Fcoll fcoll = Fcoll::automatic;    // openmpi.fcoll
    int ompio_aggregators = 0;         // openmpi.num_aggregators (0: OMPIO's own choice)
    uint64_t ompio_bytes_per_agg = 32 << 20;  // openmpi.bytes_per_agg (io_ompio.h default)
    bool cb_buffer_size_hint = false;  // the config sets cb_buffer_size (OMPIO reads the hint)
    std::shared_ptr<const LibrarySettings> library;  // the file's library's, if it has a block
    std::vector<DatasetSettings> datasets;  // one per workload dataset
};

// One concurrent transfer: from a client node to a storage target, or node to node.
struct Flow {
    int src = 0;            // client node
    int dst = 0;            // target index (to_target) or client node
    bool to_target = false;
    uint64_t bytes = 0;
    double target_busy_s = 0;  // per-RPC and lock costs the target spends on this flow
};

// Bytes [begin, end) of one storage object (a file instance's stripe object of one layout
// component on one target) that one client node writes.
struct ObjectExtent {
    int node = 0;
    int target = 0;
    uint64_t file = 0;  // OpenFile::id
    int component = 0;
    uint64_t begin = 0, end = 0;
};

// Flows that run together; the phase ends when the last one does. fixed_s is added after.
struct Phase {
    std::string label;  // open, write, close, metadata...
    std::vector<Flow> flows;
    double fixed_s = 0;
    uint64_t repeat = 1;  // identical consecutive phases
    uint64_t max_process_bytes = 0;  // most bytes one process writes to storage in the phase
    uint64_t max_process_calls = 0;  // most write calls one process makes in the phase
    // The longest a node's writers of one file take to copy their bytes in, where the client
    // lets them in one call at a time (contended_writes.hpp; files go side by side); 0: none.
    double contended_write_s = 0;
    // What the phase's writers wait for extent-lock revocations (extent_locks.hpp): a wait in
    // the writing processes, before their data reaches the cache or the targets.
    double lock_wait_s = 0;
    // What they wait for the client's range locks: a node's calls that share pages, one after
    // another (client_range_locks.hpp); the same wait as lock_wait_s, which of the two is longer.
    double range_lock_wait_s = 0;
    bool sync = false;  // waits until every write before it is on the targets (close, flush)
    // The object bytes its flows write, where the platform's cache keeps overwrites in place
    // (ClientCache::holds_dirty_pages; else empty): which of them are still dirty there.
    std::vector<ObjectExtent> extents;
};

// A phase of fixed time and no flows.
inline Phase fixed_phase(const char* label, double seconds, bool sync = false)
{
    Phase ph;
    ph.label = label;
    ph.fixed_s = seconds;
    ph.sync = sync;
    return ph;
}

// How a write call reached storage.
enum class WritePath : uint8_t { two_phase, independent };

inline const char* write_path_name(WritePath path)
{
    return path == WritePath::two_phase ? "two-phase" : "independent";
}

struct Breakdown {
    std::vector<uint64_t> bytes_per_target;
    std::vector<uint64_t> bytes_per_server;
    uint64_t rpcs = 0;
    uint64_t lock_conflicts = 0;
    uint64_t rounds = 0;
    uint64_t shuffle_bytes = 0;
    uint64_t sieve_read_bytes = 0;  // read by data sieving before it writes a window back
    uint64_t payload_bytes = 0;
    uint64_t file_bytes = 0;
    PosixCalls posix;
    std::vector<int> aggregators;  // per collective write call: aggregators used
    // What each client node and each process sent to storage (the ceiling's resources).
    std::vector<uint64_t> bytes_per_node, bytes_per_process;
    std::vector<WritePath> write_paths;  // per write call
    // With options.report_ranges: per file session and dataset, [offset, length, writer] runs
    // of instance 0, so tests can compare them with what the real library wrote.
    struct Range {
        uint64_t offset, length;
        uint32_t writer;
    };
    struct DatasetRanges {
        std::string file, dataset;
        std::vector<Range> ranges;
    };
    std::vector<DatasetRanges> dataset_ranges;
};

}  // namespace iosim
