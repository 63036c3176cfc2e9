// The ceiling of a run: the most it could write on its machine under its placement, the least
// aggregate capacity of the resources its data had to cross before the run counted it done.
// Those are the ones the simulation used, read from the same placement (breakdown): the OSTs
// its bytes landed on, at their own bandwidth, the OSS links of those OSTs, the routers on
// their way, the storage fabric, the NICs of the client nodes that sent data to storage, and,
// where the platform has a client cache, each such node's Lustre client and each writing
// process's (an aggregator's, under collective buffering) copy rate. Every one of them carries
// at least the run's payload in the time it takes, so the run's rate is at most the least of
// them. When the client cache still holds data at the end of the run (a page cache that close
// leaves dirty), the storage side was not on the path: the ceiling is the client side's.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model.hpp"

namespace iosim {

struct CeilingTerm {
    std::string resource;  // OSTs, OSS links, routers, storage fabric, client NICs, ...
    int count = 0;
    double Bps = 0;  // their aggregate capacity
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
