// Which mechanism a run's time goes to. A phase whose flows run together ends when its busiest
// resource has carried its load (SimGrid's max-min sharing: each resource's load over its
// capacity bounds the phase from below, and the largest of those bounds is the phase): the
// phase's flow time is charged to the class of that resource, and the time of a target split
// into its bandwidth, the loss to interleaved client streams (resource_loads.hpp's degraded
// bandwidth) and its per-request service. Fixed costs are charged by the phase that
// carries them (open, close, the collective steps of a write call), the client's copy into its
// cache to the process or node limit that set it, the writers' waits for extent-lock
// revocations to them (extent_locks.hpp), and a wait for cached writes to the flush
// that was waited for (lustre_client.hpp). The charges of a run add up to its time.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/resource_loads.hpp"

namespace iosim {

enum class Mechanism {
    target_bandwidth,   // OSTs at their full bandwidth
    target_contention,  // OSTs slowed by interleaved client streams
    target_service,     // OSTs' per-request service (merged RPCs at the media)
    servers,            // the OSS links
    routers,
    storage_fabric,
    client_nics,
    mpi_fabric,         // node-to-node traffic (the collective buffering shuffle)
    client_processes,   // one process's copy into the client cache and its RPCs
    client_nodes,       // one node's Lustre client
    lock_waits,         // writers waiting for extent-lock / token revocations
    range_locks,        // a node's writers waiting for each other at the client's range locks
    open,               // create, open, superblock reads, dataset creation
    close,              // metadata written at close, the closing steps
    fixed,              // a write call's collective steps, fill buffers, metadata flushes
    count
};

const char* mechanism_name(Mechanism m);

// A phase's flow time by mechanism, as fractions that add up to 1.
struct PhaseBinding {
    std::array<double, static_cast<size_t>(Mechanism::count)> share{};
};

PhaseBinding binding_of(const Platform& p, const ResourceLoads& loads);

// Seconds per mechanism over a run.
class TimeAttribution {
public:
    void charge(Mechanism m, double seconds);
    void charge(const PhaseBinding& binding, double seconds);
    // The fixed seconds of a phase, by its label (compute is not I/O time: not charged).
    void charge_fixed(const std::string& label, double seconds);
    double total() const;
    Mechanism largest() const;
    nlohmann::json to_json() const;  // {name: seconds} of every mechanism charged
    // What was charged since `earlier` (a copy of this attribution taken then).
    TimeAttribution since(const TimeAttribution& earlier) const;
    // `other`'s charges `times` over.
    void add(const TimeAttribution& other, double times);

private:
    std::array<double, static_cast<size_t>(Mechanism::count)> seconds_{};
};

}  // namespace iosim
