// The first touch of a buffer's pages. A buffer a library allocates (ROMIO's collective buffer,
// allocated at MPI_File_open, adio/common/ad_open.c: fd->io_buf = ADIOI_Malloc(cb_buffer_size),
// and freed at close) is mapped lazily: its pages cost the kernel, and on a virtual machine
// whose free pages go back to the host the hypervisor too, when first written, and nothing once
// warm. A collective buffer is touched as far as its largest round has filled it, once per file
// session; a buffer of 1 MiB reused for 32 rounds costs that once, one of 32 MiB filled in one
// round 32 times as much. OMPIO allocates its buffer in each collective call instead (fcoll's
// write_all: global_buf = malloc(bytes_per_cycle)) and frees it at the end, and glibc's malloc
// serves the next call's from the same warm pages below its 32 MiB mmap ceiling: the session is
// the approximation for both. Measured on this kind of machine by bench/collective_buffer_size.py:
// the write time grows with cb_buffer_size at fixed data, beyond the first few MiB.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "model/model.hpp"

namespace iosim {

// Seconds to write a whole fresh buffer of `bytes`: its first touch where the platform gives a
// rate, else a copy at its memcpy rate.
double fresh_buffer_s(const Network& n, uint64_t bytes);

// The collective buffers of one file session, each as far as a round has filled it.
class SessionBuffers {
public:
    // Seconds the round costs `owner` (an aggregator's writer index) that fills its buffer to
    // `filled` bytes. Keeps nothing on a platform that gives no first_touch_mbs.
    double fill(const Network& n, int owner, uint64_t filled);

private:
    std::unordered_map<int, uint64_t> touched_;
};

}  // namespace iosim
