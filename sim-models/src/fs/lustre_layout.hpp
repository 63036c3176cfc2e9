// A file's Lustre layout (Lustre Operations Manual: "Progressive File Layout", "Data on MDT",
// "Managing OST pools"): plain, one stripe pattern over the whole file, or progressive,
// components by file extent, each with its own stripe count and size on its own OST pool, or
// on the file's metadata target (Data-on-MDT). A byte's stripe is counted from the file's
// start, not its component's (lov_stripe_number, lustre/lov/lov_offset.c: a component's end is
// a multiple of its stripe size). The MPI-IO layer sees one pattern: for a file of size 0,
// LL_IOC_LOV_GETSTRIPE answers a layout-unaware caller with the last component of a composite
// layout (lov_getstripe, lustre/lov/lov_pack.c: "Legacy app (ADIO for instance) treats the
// layout as V1/V3 blindly"), which is what ROMIO's Lustre driver reads at open
// (ad_lustre_open.c), so its aggregators and file domains follow the last component.
//
// Which layout a file gets, as Lustre decides it: the config's components; else, if the config
// sets a plain layout key (stripe_count, stripe_size, stripe_offset, pool), a plain layout (a
// hand-set layout replaces the directory's default); else the site's default layout
// (site_defaults.lustre: its components, or its plain keys). A layout naming no pool lands in
// the site's `pool` (the directory default's: OLCF's Orion puts one on the performance tier),
// else the file system's own targets.
#pragma once

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace iosim {

// The platform's pools: the file system's own targets (filesystem.pool, default "") first,
// then filesystem.pools in order; the MDTs that take Data-on-MDT (filesystem.metadata_servers
// with filesystem.dom_max_bytes and mdt_mbs).
void parse_storage(const nlohmann::json& filesystem, FileSystem& fs);

// The file's layout into s.components (and s.stripe_count / s.stripe_size, the MPI-IO
// layer's view): `lustre` is the site's lustre block overlaid with the config's, `config` the
// config's own. Throws std::invalid_argument naming the key for a layout the file system
// refuses (an unknown pool, Data-on-MDT where there is none or past dom_max_bytes, component
// ends that do not increase or end before the end of the file).
void apply_layout(const nlohmann::json& lustre, const nlohmann::json& config, FileSettings& s,
                  const Platform& p);

}  // namespace iosim
