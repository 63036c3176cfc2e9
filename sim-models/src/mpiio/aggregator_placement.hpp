// Which processes may aggregate, in the order a collective write takes them (cb_nodes of them
// are used): the writers each node offers (cb_config_list "*:N": at most N of its processes,
// "*:*": all of them), in one of two orders.
//
// - packed: ROMIO's own order (ADIOI_cb_config_list_parse, ad_cb_config_list.c): node by
//   node, a node's processes in rank order before the next node's. With "*:1" (ROMIO's
//   default) that is the first process of each node in turn; with "*:*" and fewer aggregators
//   than processes, the first nodes' processes only.
// - spread: Cray MPI-IO (Cray MPT, HPE Cray MPICH; its ADIO reports itself as "CRAY ADIO").
//   Its hints listing (MPICH_MPIIO_HINTS_DISPLAY=1) shows cb_config_list = *:* and
//   aggregator_placement_stride = -1 for a Lustre file, and cb_nodes = the stripe count; the
//   environment listing MPICH_MPIIO_AGGREGATOR_PLACEMENT_STRIDE = -1. Stride -1 places the
//   aggregators spread over the job's nodes, one per node in turn and a second round of nodes
//   only when there are more aggregators than nodes (the intro_mpi man page; the Lustre
//   aggregation study of Liao et al. on Cori: "the placements of I/O aggregators are fully
//   spread out across nodes" with the stride -1, and the stripe count aggregators taken
//   round robin across nodes by default). So 48 stripes on 16 nodes of 24 processes are 48
//   aggregators, 3 on every node, where ROMIO's "*:1" gives 16, one per node.
#pragma once

#include <vector>

#include "model/model.hpp"

namespace iosim {

// The candidate aggregators (writer indices) among writers whose nodes are `node_of_writer`,
// at most `per_node` of each node, in `placement` order.
std::vector<int> aggregator_candidates(const std::vector<int>& node_of_writer, int per_node,
                                       AggregatorPlacement placement);

}  // namespace iosim
