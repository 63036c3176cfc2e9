// The simulated run's system calls as Darshan's POSIX module counts them (darshan-runtime,
// darshan-posix.c: POSIX_WRITES, POSIX_READS, POSIX_BYTES_READ and the POSIX_SIZE_WRITE_*
// histogram), so that a simulation can be set beside a Darshan log of the real run.
#pragma once

#include <array>
#include <cstdint>

namespace iosim {

struct PosixCalls {
    // Darshan's access-size bins: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M, 4M-10M,
    // 10M-100M, 100M-1G, 1G and up.
    static constexpr std::array<uint64_t, 9> bin_limits = {100, 1024, 10240, 102400, 1048576, 4194304, 10485760,
                                                           104857600, 1073741824};
    uint64_t writes = 0;           // data writes: pieces, collective buffers, sieve windows
    uint64_t metadata_writes = 0;  // HDF5 metadata entries written at flush or close (sizes not modelled)
    uint64_t reads = 0;            // reads before a write: sieve windows, two-phase read-modify-write
    uint64_t read_bytes = 0;
    std::array<uint64_t, bin_limits.size() + 1> write_sizes{};

    // `calls` writes of `bytes` in all, as even as calls of whole windows allow.
    void write(uint64_t bytes, uint64_t calls = 1);
    void read(uint64_t bytes, uint64_t calls = 1);
};

}  // namespace iosim
