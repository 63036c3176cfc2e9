#include "selection/run_region.hpp"

#include <algorithm>
#include <utility>

namespace iosim {

RunRegion::RunRegion(uint64_t base, std::vector<uint64_t> dims, uint64_t element_bytes, const HyperslabRun& run)
    : base_(base), element_bytes_(element_bytes), dims_(std::move(dims)), run_(run)
{
    empty_ = run_.writers == 0 || member(0).extent().empty();
}

BoxRegion RunRegion::member(uint64_t k) const
{
    size_t nd = dims_.size();
    std::vector<uint64_t> bytes_dims = dims_;
    bytes_dims[nd - 1] *= element_bytes_;
    std::vector<AxisSlots> axes;
    for (size_t a = 0; a < nd; a++) {
        uint64_t scale = a + 1 == nd ? element_bytes_ : 1;
        uint64_t start = (run_.start[a] + k * run_.start_step[a]) * scale;
        uint64_t count = run_.count[a], block = run_.block[a] * scale, stride = run_.stride[a] * scale;
        // blocks that touch make one slot (hyperslab_boxes in access.cpp)
        if (count == 1 || stride == block) {
            block *= count;
            count = count > 0 ? 1 : 0;
        }
        axes.push_back(AxisSlots::progression(start, stride, count, block, bytes_dims[a]));
    }
    return BoxRegion(base_, std::move(bytes_dims), std::move(axes), std::vector<uint64_t>(nd, 0),
                     run_.first_writer + k * run_.writer_step, 1);
}

bool RunRegion::member_of(uint64_t writer, uint64_t& k) const
{
    if (empty_ || writer < run_.first_writer)
        return false;
    uint64_t d = writer - run_.first_writer;
    if (run_.writer_step == 0) {
        k = 0;
        return d == 0;
    }
    if (d % run_.writer_step != 0 || d / run_.writer_step >= run_.writers)
        return false;
    k = d / run_.writer_step;
    return true;
}

WriterExtent RunRegion::extent() const
{
    if (empty_)
        return {};
    // members move by a constant amount with k, forward or backward (a negative start_step)
    WriterExtent a = member(0).extent(), b = member(run_.writers - 1).extent();
    return {std::min(a.first, b.first), std::max(a.end, b.end)};
}

uint64_t RunRegion::bytes() const
{
    return empty_ ? 0 : member(0).bytes() * run_.writers;
}

uint64_t RunRegion::pieces() const
{
    return empty_ ? 0 : member(0).pieces() * run_.writers;
}

uint64_t RunRegion::next_writer(uint64_t writer) const
{
    if (empty_)
        return no_offset;
    if (writer <= run_.first_writer)
        return run_.first_writer;
    if (run_.writer_step == 0)
        return no_offset;
    uint64_t k = (writer - run_.first_writer + run_.writer_step - 1) / run_.writer_step;
    return k < run_.writers ? run_.first_writer + k * run_.writer_step : no_offset;
}

WriterExtent RunRegion::writer_extent(uint64_t writer) const
{
    uint64_t k = 0;
    if (!member_of(writer, k))
        return {};
    if (run_.writer_step == 0)
        return extent();
    return member(k).extent();
}

void RunRegion::add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const
{
    if (empty_)
        return;
    uint64_t b = member(0).bytes(), p = member(0).pieces();
    for (uint64_t k = 0; k < run_.writers; k++) {
        bytes[run_.first_writer + k * run_.writer_step] += b;
        pieces[run_.first_writer + k * run_.writer_step] += p;
    }
}

void RunRegion::writer_pieces(uint64_t writer, const PieceFn& fn) const
{
    uint64_t k = 0;
    if (!member_of(writer, k))
        return;
    if (run_.writer_step != 0)
        return member(k).writer_pieces(writer, fn);
    // one writer named n times: its copies in file order
    std::vector<std::pair<uint64_t, uint64_t>> all;
    for (uint64_t m = 0; m < run_.writers; m++)
        member(m).writer_pieces(writer, [&](uint64_t o, uint64_t n) { all.emplace_back(o, n); });
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& [o, n] : all)
        fn(o, n);
}

void RunRegion::cover(uint64_t lo, uint64_t hi, CoverState*, CoverSink& sink) const
{
    if (empty_)
        return;
    // members' first and last bytes move by the same amount with k: in file order, the
    // members are k = 0, 1, ... or, with a negative start_step, k = n - 1, n - 2, ...
    uint64_t n = run_.writers;
    bool backward = n > 1 && member(1).extent().first < member(0).extent().first;
    auto in_file_order = [&](uint64_t j) { return backward ? n - 1 - j : j; };
    WriterExtent e0 = member(in_file_order(0)).extent();
    uint64_t delta = n > 1 ? member(in_file_order(1)).extent().first - e0.first : 0;
    uint64_t j_lo = 0, j_hi = n;  // members [j_lo, j_hi) in file order may overlap [lo, hi)
    if (delta > 0) {
        j_lo = lo < e0.end ? 0 : (lo - e0.end) / delta + 1;
        j_hi = hi <= e0.first ? 0 : std::min(n, (hi - e0.first - 1) / delta + 1);
    }
    for (uint64_t j = j_lo; j < j_hi; j++)
        member(in_file_order(j)).cover(lo, hi, nullptr, sink);
}

uint32_t RunRegion::first_writer() const
{
    return static_cast<uint32_t>(run_.first_writer);
}

uint32_t RunRegion::last_writer() const
{
    return static_cast<uint32_t>(run_.first_writer + (run_.writers - 1) * run_.writer_step);
}

}  // namespace iosim
