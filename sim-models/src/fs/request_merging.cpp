#include "fs/request_merging.hpp"

namespace iosim {

uint64_t RequestRuns::add(uint32_t stream, uint64_t offset, uint64_t bytes)
{
    if (bytes == 0)
        return 0;
    Run& run = runs_.values()[stream];
    uint64_t before = 0;
    if (run.bytes > 0 && run.end == offset) {
        before = requests(run.bytes);
    } else {
        run.bytes = 0;
    }
    run.bytes += bytes;
    run.end = offset + bytes;
    return requests(run.bytes) - before;
}

}  // namespace iosim
