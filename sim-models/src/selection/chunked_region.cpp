#include "selection/chunked_region.hpp"

#include <algorithm>

namespace iosim {

ChunkedRegion::ChunkedRegion(BoxRegion whole, const DatasetLayout& layout, uint64_t element_bytes)
    : whole_(std::move(whole)), layout_(layout), chunk_dims_(layout.chunk_dims)
{
    size_t nd = chunk_dims_.size();
    chunk_dims_[nd - 1] *= element_bytes;
    // the chunks inside the selection's bounds along every axis
    std::vector<uint64_t> first(nd), last(nd);
    for (size_t a = 0; a < nd; a++) {
        uint64_t lo = whole_.axis(a).first_selected(0), hi = whole_.axis(a).last_selected_end(no_offset);
        if (lo == no_offset || hi <= lo)
            return;
        first[a] = lo / chunk_dims_[a];
        last[a] = (hi - 1) / chunk_dims_[a];
    }
    by_address_ = chunks_by_address(first, last);
    for (uint64_t c0 : by_address_) {
        WriterExtent e = chunk(c0).extent();
        if (!e.empty()) {
            extent_.first = e.first;
            break;
        }
    }
    for (auto it = by_address_.rbegin(); it != by_address_.rend(); ++it) {
        WriterExtent e = chunk(*it).extent();
        if (!e.empty()) {
            extent_.end = e.end;
            break;
        }
    }
}

const BoxRegion& ChunkedRegion::chunk(uint64_t c) const
{
    auto it = kept_.find(c);
    if (it != kept_.end())
        return it->second;
    if (kept_.size() >= kept_chunks)
        kept_.clear();
    return kept_.emplace(c, cut(c)).first->second;
}

BoxRegion ChunkedRegion::cut(uint64_t c) const
{
    size_t nd = chunk_dims_.size();
    std::vector<uint64_t> lo(nd), hi(nd);
    for (size_t a = nd, rest = c; a-- > 0;) {
        lo[a] = rest % layout_.chunk_grid[a] * chunk_dims_[a];
        hi[a] = lo[a] + chunk_dims_[a];
        rest /= layout_.chunk_grid[a];
    }
    return whole_.window(lo, hi, layout_.chunk_addr[c], chunk_dims_);
}

std::vector<uint64_t> ChunkedRegion::chunks_of(uint64_t writer) const
{
    std::vector<uint64_t> lo, hi, out;
    if (!whole_.writer_bounds(writer, lo, hi))
        return out;
    size_t nd = lo.size();
    std::vector<uint64_t> first(nd), last(nd);
    for (size_t a = 0; a < nd; a++) {
        first[a] = lo[a] / chunk_dims_[a];
        last[a] = (hi[a] - 1) / chunk_dims_[a];
    }
    return chunks_by_address(first, last);
}

std::vector<uint64_t> ChunkedRegion::chunks_by_address(const std::vector<uint64_t>& first,
                                                       const std::vector<uint64_t>& last) const
{
    std::vector<uint64_t> out;
    for_each_chunk(layout_, first, last, [&](const std::vector<uint64_t>&, uint64_t index) {
        out.push_back(index);
    });
    std::sort(out.begin(), out.end(),
              [&](uint64_t x, uint64_t y) { return layout_.chunk_addr[x] < layout_.chunk_addr[y]; });
    return out;
}

uint64_t ChunkedRegion::pieces() const
{
    uint64_t n = 0;
    for (uint64_t c : by_address_)
        n += chunk(c).pieces();
    return n;
}

WriterExtent ChunkedRegion::writer_extent(uint64_t writer) const
{
    WriterExtent out;
    for (uint64_t c : chunks_of(writer)) {
        WriterExtent e = chunk(c).writer_extent(writer);
        if (e.empty())
            continue;
        out.first = std::min(out.first, e.first);
        out.end = std::max(out.end, e.end);
    }
    return out;
}

void ChunkedRegion::add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const
{
    std::vector<uint64_t> unchunked(pieces.size(), 0);
    whole_.add_writer_totals(bytes, unchunked);  // a writer's bytes do not depend on the chunks
    for (uint64_t w = whole_.next_writer(0); w != no_offset; w = whole_.next_writer(w + 1))
        for (uint64_t c : chunks_of(w))
            pieces[w] += chunk(c).writer_piece_count(w);
}

void ChunkedRegion::writer_pieces(uint64_t writer, const PieceFn& fn) const
{
    for (uint64_t c : chunks_of(writer))
        chunk(c).writer_pieces(writer, fn);
}

void ChunkedRegion::cover(uint64_t lo, uint64_t hi, CoverState*, CoverSink& sink) const
{
    const auto& addr = layout_.chunk_addr;
    // the last chunk that starts at or before lo, then on while chunks start before hi
    auto it = std::upper_bound(by_address_.begin(), by_address_.end(), lo,
                               [&](uint64_t x, uint64_t c) { return x < addr[c]; });
    if (it != by_address_.begin())
        --it;
    for (; it != by_address_.end() && addr[*it] < hi; ++it)
        if (addr[*it] + layout_.chunk_bytes > lo)
            chunk(*it).cover(lo, hi, nullptr, sink);
}

uint32_t ChunkedRegion::first_writer() const
{
    for (uint64_t c : by_address_) {
        const BoxRegion& r = chunk(c);
        if (!r.extent().empty())
            return r.first_writer();
    }
    return 0;
}

uint32_t ChunkedRegion::last_writer() const
{
    for (auto it = by_address_.rbegin(); it != by_address_.rend(); ++it) {
        const BoxRegion& r = chunk(*it);
        if (!r.extent().empty())
            return r.last_writer();
    }
    return 0;
}

}  // namespace iosim
