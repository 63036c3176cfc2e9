#include "fs/file_creates.hpp"

#include <algorithm>

namespace iosim {

double create_files_s(const FileSystem& fs, uint64_t files, int objects)
{
    if (files == 0)
        return 0;
    double latency = fs.create_s + objects * fs.create_per_stripe_s;
    if (fs.mds_create_per_s <= 0)
        return latency;
    double servers = static_cast<double>(std::max(1, fs.metadata_servers));
    return std::max(latency, static_cast<double>(files) / (fs.mds_create_per_s * servers));
}

}  // namespace iosim
