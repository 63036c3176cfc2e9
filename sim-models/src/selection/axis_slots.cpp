#include "selection/axis_slots.hpp"

#include <algorithm>

namespace iosim {

void AxisSlots::add_run(uint64_t slots, uint64_t start, uint64_t stride, uint64_t extent)
{
    if (slots == 0)
        return;
    covered_before_.push_back(total_);
    runs_.push_back({count_, slots, start, extent == 0 ? 0 : stride, extent});
    count_ += slots;
    total_ += slots * extent;
}

AxisSlots AxisSlots::listed(const std::vector<uint64_t>& extents, uint64_t shift, uint64_t scale)
{
    AxisSlots a;
    uint64_t at = shift;
    for (size_t s = 0; s < extents.size();) {
        size_t t = s + 1;
        while (t < extents.size() && extents[t] == extents[s])
            t++;
        a.add_run(t - s, at * scale, extents[s] * scale, extents[s] * scale);
        at += (t - s) * extents[s];
        s = t;
    }
    return a;
}

AxisSlots AxisSlots::progression(uint64_t first, uint64_t stride, uint64_t count, uint64_t block, uint64_t limit)
{
    AxisSlots a;
    if (block == 0 || first >= limit || count == 0)
        return a;
    stride = std::max<uint64_t>(1, stride);
    count = std::min(count, (limit - first - 1) / stride + 1);  // slots that start before the limit
    uint64_t last = first + (count - 1) * stride;
    a.add_run(count - 1, first, stride, block);
    a.add_run(1, last, stride, std::min(block, limit - last));
    return a;
}

uint64_t AxisSlots::first_ending_after(uint64_t x) const
{
    auto r = std::upper_bound(runs_.begin(), runs_.end(), x, [](uint64_t v, const Run& run) { return v < run.end(); });
    if (r == runs_.end())
        return count_;
    if (r->extent == 0 || x < r->start + r->extent)
        return r->first_slot;
    return r->first_slot + (x - r->start - r->extent) / r->stride + 1;
}

uint64_t AxisSlots::slot_of(uint64_t x) const
{
    uint64_t s = first_ending_after(x);
    return s < count_ && start(s) <= x && extent(s) > 0 ? s : count_;
}

uint64_t AxisSlots::covered_below(uint64_t t) const
{
    // the last run that starts below t
    auto r = std::upper_bound(runs_.begin(), runs_.end(), t, [](uint64_t v, const Run& run) { return v <= run.start; });
    if (r == runs_.begin())
        return 0;
    --r;
    uint64_t k = r->extent == 0 ? r->slots : std::min(r->slots, (t - r->start - 1) / r->stride + 1);
    uint64_t last_start = r->start + (k - 1) * r->stride;
    return covered_before_[static_cast<size_t>(r - runs_.begin())] + (k - 1) * r->extent +
           std::min(r->extent, t - last_start);
}

uint64_t AxisSlots::overlap(uint64_t x, uint64_t y) const
{
    return y <= x ? 0 : covered_below(y) - covered_below(x);
}

uint64_t AxisSlots::first_selected(uint64_t x) const
{
    auto r = std::upper_bound(runs_.begin(), runs_.end(), x, [](uint64_t v, const Run& run) { return v < run.end(); });
    while (r != runs_.end() && r->extent == 0)
        ++r;
    if (r == runs_.end())
        return no_offset;
    if (x < r->start + r->extent)
        return std::max(x, r->start);
    uint64_t s = (x - r->start - r->extent) / r->stride + 1;
    return std::max(x, r->start + s * r->stride);
}

uint64_t AxisSlots::last_selected_end(uint64_t y) const
{
    auto r = std::upper_bound(runs_.begin(), runs_.end(), y, [](uint64_t v, const Run& run) { return v <= run.start; });
    while (r != runs_.begin() && (r - 1)->extent == 0)
        --r;
    if (r == runs_.begin())
        return 0;
    --r;
    uint64_t k = std::min(r->slots, (y - r->start - 1) / r->stride + 1);
    return std::min(y, r->start + (k - 1) * r->stride + r->extent);
}

AxisSlots AxisSlots::window(uint64_t lo, uint64_t hi, uint64_t& first) const
{
    AxisSlots w;
    first = first_ending_after(lo);
    if (first >= count_)
        return w;
    uint64_t s = first;
    auto r = std::upper_bound(runs_.begin(), runs_.end(), s,
                              [](uint64_t slot, const Run& run) { return slot < run.first_slot; });
    for (--r; r != runs_.end() && s < count_; ++r) {
        for (uint64_t end_slot = r->first_slot + r->slots; s < end_slot;) {
            uint64_t at = r->start + (s - r->first_slot) * r->stride;
            if (at >= hi && r->extent > 0)
                return w;
            if (at > hi)
                return w;
            uint64_t end = at + r->extent;
            if (at < lo || end > hi) {  // cut: a run of its own
                uint64_t from = std::max(at, lo), to = std::min(end, hi);
                w.add_run(1, from - lo, r->stride, to > from ? to - from : 0);
                s++;
                continue;
            }
            // the slots of this run that lie whole inside [lo, hi)
            uint64_t inside = r->extent == 0 ? end_slot - s : std::min(end_slot - s, (hi - at - r->extent) / r->stride + 1);
            w.add_run(inside, at - lo, r->stride, r->extent);
            s += inside;
        }
    }
    return w;
}

}  // namespace iosim
