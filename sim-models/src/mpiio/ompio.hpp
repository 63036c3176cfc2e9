// Open MPI 4.1's OMPIO (v4.1.4: ompi/mca/common/ompio, ompi/mca/fcoll): its collective
// component (fcoll), aggregator count and placement, file domains and cycles, and its
// independent writes (no data sieving). The ROMIO hints it ignores have no effect here.
#pragma once

#include "mpiio/mpi_io.hpp"

namespace iosim {

void ompio_write(const MpiIoContext& ctx, const WriteCall& call);

// The aggregator count of OMPIO's simple grouping (io_ompio_grouping_option 5) for `procs`
// processes whose views have `contiguous` bytes per contiguous piece and `view` bytes each on
// average, with `buffer` bytes per aggregator.
int ompio_simple_grouping(int procs, uint64_t contiguous, uint64_t view, uint64_t buffer);

}  // namespace iosim
