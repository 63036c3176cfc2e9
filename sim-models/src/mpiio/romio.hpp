// ROMIO's choices for one write call (MPICH's MPI-IO, and Open MPI's romio321): whether to
// buffer collectively (romio_cb_write: romio_cb_write.hpp), its aggregators (cb_config_list, cb_nodes, the
// driver's defaults) and file domains (the Lustre driver's stripe-cyclic ones, the others'
// even ones aligned to striping_unit), cb_buffer_size a round; else independent writes with
// data sieving (romio_ds_write).
#pragma once

#include <vector>

#include "mpiio/mpi_io.hpp"

namespace iosim {

// Aggregator writers as ROMIO picks them (cb_config_list, cb_nodes, driver defaults).
std::vector<int> choose_aggregators(const Platform& p, const FileSettings& s, const std::vector<int>& node_of_writer,
                                    int stripe_count);

void romio_write(const MpiIoContext& ctx, const WriteCall& call);

}  // namespace iosim
