#include "mpiio/romio_cb_write.hpp"

#include <algorithm>

namespace iosim {

namespace {

constexpr int offset_allgathers = 2;  // the start offsets, then the end offsets
// ADIOI_Calc_others_req's two exchanges, the round count's allreduce, the closing allreduce
constexpr int buffering_steps = 4;

}  // namespace

bool romio_interleaved(const PieceSet& pieces)
{
    const WriterExtent* previous = nullptr;
    for (const WriterExtent& e : pieces.writer_extents()) {
        if (e.empty())
            continue;
        if (previous != nullptr && e.first + 1 < previous->end)  // st[i] < previous end's last byte
            return true;
        previous = &e;
    }
    return false;
}

bool romio_buffers(Hint cb_write, const std::vector<PieceSet>& pieces)
{
    if (cb_write != Hint::automatic)
        return cb_write == Hint::enable;
    return std::any_of(pieces.begin(), pieces.end(), [](const PieceSet& p) { return romio_interleaved(p); });
}

int romio_call_steps(Hint cb_write, bool buffers)
{
    if (cb_write == Hint::disable)
        return 0;
    return offset_allgathers + (buffers ? buffering_steps : 0);
}

}  // namespace iosim
