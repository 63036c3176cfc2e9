// The ceiling of a run: the most it could write on its machine under its placement. Each
// resource its data crossed before the run counted it done can carry no more than its
// capacity: a class of them (the OSTs and MDTs written, the server links, the routers, the
// storage fabric, the writing nodes' NICs, and with a client cache each writing node's Lustre
// client and each writing process's copy; under collective buffering the writers are the
// aggregators) needs at least max over its members of bytes / capacity, so the run's rate is at
// most payload / that, for every class: the least of these is the ceiling. With the data spread
// evenly a class's term is its aggregate capacity (n x bandwidth); with one member loaded more,
// the term follows it. The bytes are the run's own breakdown, from the same placement that was
// simulated. When the run ends with data still in the client cache (a page cache that close
// leaves dirty), the storage side was not on its path: the ceiling is the client side's.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace iosim {

struct CeilingTerm {
    std::string resource;  // OSTs, MDTs, server links, routers, storage fabric, client NICs, ...
    int count = 0;         // how many of them the run used
    double Bps = 0;        // the most the run's payload could go through them
};

struct Ceiling {
    double Bps = std::numeric_limits<double>::infinity();  // infinite: no resource bounds it
    std::string bound_by;  // the term with the least capacity
    std::vector<CeilingTerm> terms;
};

// The run's ceiling from the resources its breakdown says it used.
Ceiling run_ceiling(const Platform& p, const Breakdown& bd, bool storage_on_path);

// The best any layout could reach from the same placement: every one of `nodes` client nodes
// and `ranks` processes writing, over `stripes` targets (the platform's most a file may have,
// or fewer) of the pool where they carry the most.
Ceiling best_ceiling(const Platform& p, int nodes, int ranks, int stripes, bool storage_on_path);

// {"mbs": ... or null, "bound_by": ..., "resources": {resource: {"count", "mbs"}}}
nlohmann::json ceiling_json(const Ceiling& c);

}  // namespace iosim
