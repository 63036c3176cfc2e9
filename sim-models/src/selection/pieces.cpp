#include "selection/pieces.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <tuple>

namespace iosim {

PieceSet::PieceSet(std::vector<std::shared_ptr<const Region>> regions, uint64_t writers, uint64_t shift)
    : regions_(std::move(regions)), writers_(writers), shift_(shift)
{
    for (const auto& r : regions_)
        extents_.push_back(r->extent());
    const auto& extents = extents_;
    for (size_t i = 0; i < regions_.size(); i++)
        if (!extents[i].empty())
            by_first_.push_back(i);
    std::stable_sort(by_first_.begin(), by_first_.end(),
                     [&](size_t a, size_t b) { return extents[a].first < extents[b].first; });
    uint64_t end = 0;
    for (size_t i : by_first_) {
        end = std::max(end, extents[i].end);
        end_before_.push_back(end);
    }
    if (!by_first_.empty())
        extent_ = {extents[by_first_.front()].first + shift_, end + shift_};
    // dataset_accesses appends a contiguous dataset's first piece to the piece before it
    // (the previous dataset's last) when one writer wrote both and they touch
    size_t previous = regions_.size();
    for (size_t i = 0; i < regions_.size(); i++) {
        if (extents[i].empty())
            continue;
        if (regions_[i]->joins_previous && previous < regions_.size() &&
            extents[previous].end == extents[i].first &&
            regions_[previous]->last_writer() == regions_[i]->first_writer())
            junctions_.push_back({i, regions_[i]->first_writer()});
        previous = i;
    }
}

uint64_t PieceSet::bytes() const
{
    uint64_t n = 0;
    for (const auto& r : regions_)
        n += r->bytes();
    return n;
}

std::vector<WriterExtent> PieceSet::writer_extents() const
{
    std::vector<WriterExtent> out(writers_);
    for_each_writer([&](uint32_t w, const std::function<void(const PieceFn&)>&) {
        for (const auto& r : regions_) {
            WriterExtent e = r->writer_extent(w);
            if (e.empty())
                continue;
            out[w].first = std::min(out[w].first, e.first + shift_);
            out[w].end = std::max(out[w].end, e.end + shift_);
        }
    });
    return out;
}

void PieceSet::writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const
{
    bytes.assign(writers_, 0);
    pieces.assign(writers_, 0);
    for (const auto& r : regions_)
        r->add_writer_totals(bytes, pieces);
    for (const Junction& j : junctions_)
        pieces[j.writer]--;
}

void PieceSet::for_each_writer(const WriterFn& fn) const
{
    if (regions_.size() == 1)  // nothing to merge (IOR's records: millions of writers a period)
        return for_each_writer_of(*regions_.front(), fn);
    // writers in increasing order, merged over the regions
    using Next = std::pair<uint64_t, size_t>;  // (writer, region)
    std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
    for (size_t i = 0; i < regions_.size(); i++) {
        uint64_t w = regions_[i]->next_writer(0);
        if (w != no_offset)
            next.emplace(w, i);
    }
    std::vector<size_t> mine;
    std::vector<std::pair<WriterExtent, size_t>> parts;  // the writer's regions in file order
    while (!next.empty()) {
        uint64_t w = next.top().first;
        mine.clear();
        while (!next.empty() && next.top().first == w) {
            mine.push_back(next.top().second);
            next.pop();
        }
        std::sort(mine.begin(), mine.end());
        for (size_t i : mine) {
            uint64_t n = regions_[i]->next_writer(w + 1);
            if (n != no_offset)
                next.emplace(n, i);
        }
        // overlapping regions are merged piece by piece
        parts.clear();
        for (size_t i : mine)
            parts.emplace_back(regions_[i]->writer_extent(w), i);
        if (parts.size() > 1)  // std::stable_sort takes a buffer even for one
            std::stable_sort(parts.begin(), parts.end(),
                             [](const auto& a, const auto& b) { return a.first.first < b.first.first; });
        bool disjoint = true;
        for (size_t k = 1; k < parts.size(); k++)
            disjoint &= parts[k - 1].first.end <= parts[k].first.first;
        auto walk = [&, w](const PieceFn& out) {
            uint64_t shift = shift_;
            // a piece held back while the next may join it (junctions_)
            bool held = false;
            uint64_t held_offset = 0, held_length = 0;
            size_t held_region = 0;
            auto joins = [&](size_t region) {
                return std::any_of(junctions_.begin(), junctions_.end(), [&](const Junction& j) {
                    return j.region == region && j.writer == w;
                });
            };
            auto emit = [&](size_t region, uint64_t offset, uint64_t length) {
                if (held && held_offset + held_length == offset && region != held_region && joins(region)) {
                    held_length += length;
                    held_region = region;
                    return;
                }
                if (held)
                    out(held_offset + shift, held_length);
                held = true;
                held_offset = offset;
                held_length = length;
                held_region = region;
            };
            if (disjoint) {
                for (const auto& [e, i] : parts)
                    regions_[i]->writer_pieces(w, [&, i = i](uint64_t o, uint64_t n) { emit(i, o, n); });
            } else {
                std::vector<std::tuple<uint64_t, uint64_t, size_t>> all;
                for (const auto& [e, i] : parts)
                    regions_[i]->writer_pieces(w, [&, i = i](uint64_t o, uint64_t n) { all.emplace_back(o, n, i); });
                std::stable_sort(all.begin(), all.end(),
                                 [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
                for (const auto& [o, n, i] : all)
                    emit(i, o, n);
            }
            if (held)
                out(held_offset + shift, held_length);
        };
        fn(static_cast<uint32_t>(w), std::cref(walk));  // by reference: no copy of its captures on the heap
    }
}

void PieceSet::for_each_writer_of(const Region& region, const WriterFn& fn) const
{
    for (uint64_t w = region.next_writer(0); w != no_offset; w = region.next_writer(w + 1)) {
        auto walk = [&, w](const PieceFn& out) {
            if (shift_ == 0)
                return region.writer_pieces(w, out);
            region.writer_pieces(w, [&](uint64_t offset, uint64_t length) { out(offset + shift_, length); });
        };
        fn(static_cast<uint32_t>(w), std::cref(walk));
    }
}

PieceSet::Cover::Cover(const PieceSet& set) : set_(set)
{
    for (const auto& r : set_.regions_)
        states_.push_back(r->cover_state());
}

namespace {

// A sink that moves what it is given by `shift` bytes.
class ShiftedSink : public CoverSink {
public:
    ShiftedSink(CoverSink& to, uint64_t shift) : to_(to), shift_(shift) {}
    void writers(uint64_t first, uint64_t count, uint64_t step, uint64_t bytes) override
    {
        to_.writers(first, count, step, bytes);
    }
    void flush()
    {
        if (first != no_offset)
            to_.covered(first + shift_, end + shift_);
    }

private:
    CoverSink& to_;
    uint64_t shift_;
};

}  // namespace

void PieceSet::Cover::cover(uint64_t lo, uint64_t hi, CoverSink& sink)
{
    if (set_.empty() || hi <= set_.shift_)
        return;
    uint64_t l = lo < set_.shift_ ? 0 : lo - set_.shift_, h = hi - set_.shift_;
    // regions that start before h; of those, the ones that may still end after l
    const auto& order = set_.by_first_;
    const auto& ends = set_.end_before_;
    size_t stop = first_;
    while (stop < order.size() && set_.extents_[order[stop]].first < h)
        stop++;
    // regions before first_ all end at or before any later interval's start
    while (first_ < order.size() && ends[first_] <= l)
        first_++;
    ShiftedSink shifted(sink, set_.shift_);
    for (size_t k = first_; k < stop; k++) {
        size_t r = order[k];
        set_.regions_[r]->cover(l, h, states_[r].get(), set_.shift_ == 0 ? sink : shifted);
    }
    shifted.flush();
}

}  // namespace iosim
