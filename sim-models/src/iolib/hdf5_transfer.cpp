#include "iolib/hdf5_transfer.hpp"

namespace iosim {

void hdf5_write(const MpiIoContext& ctx, const WriteCall& call)
{
    if (call.collective)
        return mpi_io_write(ctx, call);
    ctx.breakdown.write_paths.push_back(WritePath::independent);
    independent_write(ctx, call, false);
}

}  // namespace iosim
