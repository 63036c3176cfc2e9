// The fill values parallel HDF5 1.10 writes when it allocates a dataset at create: which
// datasets it fills, who writes which bytes, and the fill buffer it sets up first.
#pragma once

#include "iolib/io_library.hpp"

namespace iosim {

// Parallel HDF5 1.10 allocates early, then fills what H5D__alloc_storage (H5Dint.c) and
// H5D__chunk_allocate (H5Dchunk.c) fill: with fill time alloc, everything; with ifset, a
// contiguous dataset only if its fill value is the user's, a chunked one if it is the user's
// or HDF5's default (not undefined); with never, nothing.
bool filled_at_allocation(FillTime fill_time, FillValue fill_value, bool chunked);

// The fill writes of every dataset of the session that HDF5 fills.
void fill_at_allocation(const MpiIoContext& ctx, const LibrarySession& session);

// The fill of `bytes` of contiguous storage at `base` (H5D__contig_fill): rank 0 alone.
void fill_contiguous(const MpiIoContext& ctx, const LibrarySession& session, uint64_t base, uint64_t bytes);

}  // namespace iosim
