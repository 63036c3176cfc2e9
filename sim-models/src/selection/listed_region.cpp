#include "selection/listed_region.hpp"

#include <algorithm>

namespace iosim {

namespace {

struct Cursor : CoverState {
    size_t next = 0;  // first piece that may still overlap an interval to come
};

}  // namespace

ListedRegion::ListedRegion(std::vector<Access> pieces, uint64_t writers)
    : pieces_(std::move(pieces)), writer_first_(writers + 1, 0)
{
    for (const Access& a : pieces_)
        writer_first_[a.writer + 1]++;
    for (size_t w = 0; w < writers; w++)
        writer_first_[w + 1] += writer_first_[w];
    by_writer_.resize(pieces_.size());
    std::vector<uint64_t> at(writer_first_.begin(), writer_first_.end() - 1);
    for (size_t i = 0; i < pieces_.size(); i++)
        by_writer_[at[pieces_[i].writer]++] = static_cast<uint32_t>(i);
    for (const Access& a : pieces_)
        extent_.end = std::max(extent_.end, a.offset + a.length);
    if (!pieces_.empty())
        extent_.first = pieces_.front().offset;
}

uint64_t ListedRegion::bytes() const
{
    uint64_t n = 0;
    for (const Access& a : pieces_)
        n += a.length;
    return n;
}

uint64_t ListedRegion::next_writer(uint64_t writer) const
{
    for (uint64_t w = writer; w + 1 < writer_first_.size(); w++)
        if (writer_first_[w + 1] > writer_first_[w])
            return w;
    return no_offset;
}

WriterExtent ListedRegion::writer_extent(uint64_t writer) const
{
    if (writer + 1 >= writer_first_.size() || writer_first_[writer + 1] == writer_first_[writer])
        return {};
    const Access& first = pieces_[by_writer_[writer_first_[writer]]];
    const Access& last = pieces_[by_writer_[writer_first_[writer + 1] - 1]];
    return {first.offset, last.offset + last.length};
}

void ListedRegion::add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const
{
    for (const Access& a : pieces_) {
        bytes[a.writer] += a.length;
        pieces[a.writer]++;
    }
}

void ListedRegion::writer_pieces(uint64_t writer, const PieceFn& fn) const
{
    if (writer + 1 >= writer_first_.size())
        return;
    for (uint64_t i = writer_first_[writer]; i < writer_first_[writer + 1]; i++)
        fn(pieces_[by_writer_[i]].offset, pieces_[by_writer_[i]].length);
}

std::unique_ptr<CoverState> ListedRegion::cover_state() const
{
    return std::make_unique<Cursor>();
}

void ListedRegion::cover(uint64_t lo, uint64_t hi, CoverState* state, CoverSink& sink) const
{
    size_t& i = static_cast<Cursor*>(state)->next;
    while (i < pieces_.size() && pieces_[i].offset + pieces_[i].length <= lo)
        i++;
    for (size_t j = i; j < pieces_.size() && pieces_[j].offset < hi; j++) {
        uint64_t o = std::max(lo, pieces_[j].offset), e = std::min(hi, pieces_[j].offset + pieces_[j].length);
        if (e <= o)
            continue;
        sink.writers(pieces_[j].writer, 1, 0, e - o);
        sink.covered(o, e);
    }
}

std::shared_ptr<const Region> listed(std::vector<Access> pieces, uint64_t writers)
{
    sort_by_offset(pieces);
    return std::make_shared<ListedRegion>(std::move(pieces), writers);
}

}  // namespace iosim
