#include "selection/box_region.hpp"

#include <algorithm>

namespace iosim {

BoxRegion::BoxRegion(uint64_t base, std::vector<uint64_t> dims, std::vector<AxisSlots> axes,
                     std::vector<uint64_t> writer_step, uint64_t writer0, uint64_t writers)
    : base_(base), dims_(std::move(dims)), axes_(std::move(axes)), step_(std::move(writer_step)), writer0_(writer0),
      writers_(writers), offset_(dims_.size(), 0), writer_base_(writer0)
{
    size_t nd = dims_.size();
    for (const AxisSlots& a : axes_)
        grid_.push_back(a.count());
    one_writer_ = std::all_of(step_.begin(), step_.end(), [](uint64_t s) { return s == 0; });
    empty_ = std::any_of(axes_.begin(), axes_.end(), [](const AxisSlots& a) { return a.total() == 0; });
    stride_.assign(nd, 1);
    for (size_t a = nd - 1; a-- > 0;)
        stride_[a] = stride_[a + 1] * dims_[a + 1];
    suffix_first_.assign(nd + 1, 0);
    suffix_end_.assign(nd + 1, 0);
    if (empty_)
        return;
    suffix_first_[nd - 1] = axes_[nd - 1].first_selected(0);
    suffix_end_[nd - 1] = axes_[nd - 1].last_selected_end(dims_[nd - 1]);
    for (size_t a = nd - 1; a-- > 0;) {
        suffix_first_[a] = axes_[a].first_selected(0) * stride_[a] + suffix_first_[a + 1];
        suffix_end_[a] = (axes_[a].last_selected_end(dims_[a]) - 1) * stride_[a] + suffix_end_[a + 1];
    }
}

WriterExtent BoxRegion::extent() const
{
    if (empty_)
        return {};
    return {base_ + suffix_first_[0], base_ + suffix_end_[0]};
}

uint64_t BoxRegion::bytes() const
{
    uint64_t n = 1;
    for (const AxisSlots& a : axes_)
        n *= a.total();
    return n;
}

// A box's runs: along the axes from `inner` on it is contiguous (box_runs in access.cpp); so
// over boxes, pieces = sum over the axis where the run starts of (choices there) x (product of
// the extents before it) x (full slots after it).
uint64_t BoxRegion::pieces() const
{
    if (empty_)
        return 0;
    size_t nd = dims_.size();
    auto full = [&](size_t a) {
        const AxisSlots& ax = axes_[a];
        uint64_t s = ax.slot_of(0);
        return s < ax.count() && ax.extent(s) == dims_[a] ? uint64_t{1} : uint64_t{0};
    };
    auto nonempty = [&](size_t a) { return axes_[a].nonempty(0, axes_[a].count()); };
    uint64_t total = 0, before = 1;
    for (size_t i = 0; i < nd; i++) {
        uint64_t after = 1;
        for (size_t b = i + 1; b < nd; b++)
            after *= full(b);
        uint64_t choices = i == 0 ? nonempty(0) : nonempty(i) - full(i);
        total += before * choices * after;
        before *= i + 1 < nd ? axes_[i].total() : 1;
    }
    return total;
}

BoxRegion BoxRegion::window(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi, uint64_t base,
                            std::vector<uint64_t> dims) const
{
    size_t nd = dims_.size();
    std::vector<AxisSlots> axes;
    std::vector<uint64_t> first(nd);
    for (size_t a = 0; a < nd; a++)
        axes.push_back(axes_[a].window(lo[a], hi[a], first[a]));
    BoxRegion w(base, std::move(dims), std::move(axes), step_, writer0_, writers_);
    w.grid_ = grid_;
    for (size_t a = 0; a < nd; a++) {
        w.offset_[a] = offset_[a] + first[a];
        w.writer_base_ += w.offset_[a] * step_[a];
    }
    return w;
}

bool BoxRegion::slots_of(uint64_t writer, std::vector<uint64_t>& slot) const
{
    size_t nd = dims_.size();
    slot.assign(nd, 0);
    if (empty_ || writer < writer0_)
        return false;
    if (one_writer_)
        return writer == writer0_;
    uint64_t r = writer - writer0_;
    if (r >= writers_)
        return false;
    for (size_t a = 0; a < nd; a++) {
        uint64_t in_grid = step_[a] == 0 ? 0 : (r / step_[a]) % grid_[a];
        if (in_grid < offset_[a] || in_grid - offset_[a] >= axes_[a].count())
            return false;
        slot[a] = in_grid - offset_[a];
        if (axes_[a].extent(slot[a]) == 0)
            return false;
    }
    return true;
}

bool BoxRegion::writer_bounds(uint64_t writer, std::vector<uint64_t>& lo, std::vector<uint64_t>& hi) const
{
    std::vector<uint64_t> slot;
    if (!slots_of(writer, slot))
        return false;
    size_t nd = dims_.size();
    lo.resize(nd);
    hi.resize(nd);
    for (size_t a = 0; a < nd; a++) {
        if (one_writer_) {
            lo[a] = axes_[a].first_selected(0);
            hi[a] = axes_[a].last_selected_end(dims_[a]);
        } else {
            lo[a] = axes_[a].start(slot[a]);
            hi[a] = axes_[a].end(slot[a]);
        }
    }
    return true;
}

uint64_t BoxRegion::writer_piece_count(uint64_t writer) const
{
    std::vector<uint64_t> slot;
    if (!slots_of(writer, slot))
        return 0;
    if (one_writer_)
        return pieces();
    std::vector<uint64_t> hi(slot.size());
    for (size_t a = 0; a < slot.size(); a++)
        hi[a] = slot[a] + 1;
    return pieces_of_count(slot, hi);
}

uint64_t BoxRegion::next_writer(uint64_t writer) const
{
    if (empty_)
        return no_offset;
    if (one_writer_)
        return writer <= writer0_ ? writer0_ : no_offset;
    thread_local std::vector<uint64_t> slot;  // scratch: asked once a writer
    for (uint64_t w = std::max(writer, writer0_); w < writer0_ + writers_; w++)
        if (slots_of(w, slot))
            return w;
    return no_offset;
}

WriterExtent BoxRegion::writer_extent(uint64_t writer) const
{
    thread_local std::vector<uint64_t> slot;  // scratch: asked once a writer
    if (!slots_of(writer, slot))
        return {};
    if (one_writer_)
        return extent();
    size_t nd = dims_.size();
    uint64_t first = base_, end = base_;
    for (size_t a = 0; a < nd; a++) {
        first += axes_[a].start(slot[a]) * stride_[a];
        end += (a + 1 < nd ? axes_[a].end(slot[a]) - 1 : axes_[a].end(slot[a])) * stride_[a];
    }
    return {first, end};
}

size_t BoxRegion::inner_axis(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi) const
{
    size_t inner = dims_.size() - 1;
    auto full = [&](size_t a) {
        return hi[a] - lo[a] == 1 && axes_[a].start(lo[a]) == 0 && axes_[a].extent(lo[a]) == dims_[a];
    };
    while (inner > 0 && full(inner))
        inner--;
    return inner;
}

uint64_t BoxRegion::pieces_of_count(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi) const
{
    size_t inner = inner_axis(lo, hi);
    uint64_t n = 1;
    for (size_t a = 0; a < inner; a++)
        n *= axes_[a].overlap(axes_[a].start(lo[a]), axes_[a].end(hi[a] - 1));
    return n * axes_[inner].nonempty(lo[inner], hi[inner]);
}

void BoxRegion::add_writer_totals(std::vector<uint64_t>& bytes, std::vector<uint64_t>& pieces) const
{
    if (empty_)
        return;
    size_t nd = dims_.size();
    if (one_writer_) {
        bytes[writer0_] += this->bytes();
        pieces[writer0_] += this->pieces();
        return;
    }
    std::vector<uint64_t> slot, hi(nd);
    for (uint64_t w = writer0_; w < writer0_ + writers_; w++) {
        if (!slots_of(w, slot))
            continue;
        uint64_t b = 1;
        for (size_t a = 0; a < nd; a++) {
            b *= axes_[a].extent(slot[a]);
            hi[a] = slot[a] + 1;
        }
        bytes[w] += b;
        pieces[w] += pieces_of_count(slot, hi);
    }
}

void BoxRegion::pieces_of(const std::vector<uint64_t>& lo, const std::vector<uint64_t>& hi, const PieceFn& fn) const
{
    size_t inner = inner_axis(lo, hi);
    const AxisSlots& in = axes_[inner];
    // indices along the axes before `inner`: slot by slot, index by index, in file order
    std::vector<uint64_t> slot(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(inner)), idx(inner);
    auto settle = [&](size_t a) {  // first index of a nonempty slot at or after slot[a]
        while (slot[a] < hi[a] && axes_[a].extent(slot[a]) == 0)
            slot[a]++;
        if (slot[a] < hi[a])
            idx[a] = axes_[a].start(slot[a]);
        return slot[a] < hi[a];
    };
    for (size_t a = 0; a < inner; a++)
        if (!settle(a))
            return;
    for (;;) {
        uint64_t off = base_;
        for (size_t a = 0; a < inner; a++)
            off += idx[a] * stride_[a];
        for (uint64_t s = lo[inner]; s < hi[inner]; s++)
            if (in.extent(s) > 0)
                fn(off + in.start(s) * stride_[inner], in.extent(s) * stride_[inner]);
        size_t a = inner;
        for (;;) {
            if (a == 0)
                return;
            a--;
            if (++idx[a] < axes_[a].end(slot[a]))
                break;
            slot[a]++;
            if (settle(a))
                break;
            slot[a] = lo[a];
            settle(a);
        }
    }
}

void BoxRegion::writer_pieces(uint64_t writer, const PieceFn& fn) const
{
    thread_local std::vector<uint64_t> slot, lo, hi;  // scratch: asked once a writer
    if (!slots_of(writer, slot))
        return;
    size_t nd = dims_.size();
    lo.resize(nd);
    hi.resize(nd);
    for (size_t a = 0; a < nd; a++) {
        lo[a] = one_writer_ ? 0 : slot[a];
        hi[a] = one_writer_ ? axes_[a].count() : slot[a] + 1;
    }
    pieces_of(lo, hi, fn);
}

uint32_t BoxRegion::first_writer() const
{
    if (one_writer_ || empty_)
        return static_cast<uint32_t>(writer0_);
    uint64_t w = writer_base_;
    for (size_t a = 0; a < dims_.size(); a++)
        w += axes_[a].slot_of(axes_[a].first_selected(0)) * step_[a];
    return static_cast<uint32_t>(w);
}

uint32_t BoxRegion::last_writer() const
{
    if (one_writer_ || empty_)
        return static_cast<uint32_t>(writer0_);
    uint64_t w = writer_base_;
    for (size_t a = 0; a < dims_.size(); a++)
        w += axes_[a].slot_of(axes_[a].last_selected_end(dims_[a]) - 1) * step_[a];
    return static_cast<uint32_t>(w);
}

void BoxRegion::cover(uint64_t lo, uint64_t hi, CoverState*, CoverSink& sink) const
{
    if (empty_)
        return;
    uint64_t l = std::max(lo, base_ + suffix_first_[0]), h = std::min(hi, base_ + suffix_end_[0]);
    if (l < h)
        visit(0, base_, writer_base_, l, h, sink);
}

// [l, h) inside the sub-array along axis a that starts at byte `off`, whose slots on the axes
// before a are fixed (their writer part in `writer`).
void BoxRegion::visit(size_t a, uint64_t off, uint64_t writer, uint64_t l, uint64_t h, CoverSink& sink) const
{
    const AxisSlots& ax = axes_[a];
    if (a + 1 == dims_.size()) {
        uint64_t x = l - off, y = h - off;
        // the first slot that ends after x (none looked up where one writer holds every slot)
        uint64_t s = step_[a] != 0 ? ax.first_ending_after(x) : ax.count();
        if (s < ax.count() && ax.start(s) <= x && y <= ax.end(s)) {  // inside it: its writer alone
            sink.covered(l, h);
            sink.writers(writer + s * step_[a], 1, 0, y - x);
            return;
        }
        uint64_t first = ax.first_selected(x), end = ax.last_selected_end(y);
        if (first == no_offset || end <= first)
            return;
        sink.covered(off + first, off + end);
        if (step_[a] == 0) {
            sink.writers(writer, 1, 0, ax.overlap(x, y));
            return;
        }
        uint64_t t = ax.first_ending_after(y);  // slots before t end by y
        if (s < ax.count() && ax.start(s) < x) {  // cut at its start
            sink.writers(writer + s * step_[a], 1, 0, std::min(y, ax.end(s)) - x);
            s++;
        }
        if (s < t)
            ax.equal_runs(s, t, [&](uint64_t first_slot, uint64_t n, uint64_t extent) {
                if (extent > 0)
                    sink.writers(writer + first_slot * step_[a], n, step_[a], extent);
            });
        if (t < ax.count() && t >= s && ax.start(t) < y)  // cut at its end
            sink.writers(writer + t * step_[a], 1, 0, y - ax.start(t));
        return;
    }
    uint64_t S = stride_[a];
    uint64_t i0 = (l - off) / S, i1 = (h - 1 - off) / S;
    auto into = [&](uint64_t i, uint64_t from, uint64_t to) {
        uint64_t s = ax.slot_of(i);
        if (s < ax.count())
            visit(a + 1, off + i * S, writer + s * step_[a], from, to, sink);
    };
    if (i0 == i1)
        return into(i0, l, h);
    uint64_t whole_lo = i0, whole_hi = i1 + 1;
    if ((l - off) % S != 0) {
        into(i0, l, off + (i0 + 1) * S);
        whole_lo = i0 + 1;
    }
    bool cut_tail = (h - off) % S != 0;
    if (cut_tail)
        whole_hi = i1;
    if (whole_lo < whole_hi)
        whole_indices(a, off, writer, whole_lo, whole_hi, sink);
    if (cut_tail)
        into(i1, off + i1 * S, h);
}

// Indices [i0, i1) along axis a, each a whole sub-array.
void BoxRegion::whole_indices(size_t a, uint64_t off, uint64_t writer, uint64_t i0, uint64_t i1,
                              CoverSink& sink) const
{
    const AxisSlots& ax = axes_[a];
    uint64_t first = ax.first_selected(i0), end = ax.last_selected_end(i1);
    if (first == no_offset || end <= first)
        return;
    uint64_t S = stride_[a];
    sink.covered(off + first * S + suffix_first_[a + 1], off + (end - 1) * S + suffix_end_[a + 1]);
    if (step_[a] == 0)
        return whole_suffix(a + 1, writer, ax.overlap(i0, i1), sink);
    for (uint64_t s = ax.first_ending_after(i0); s < ax.count() && ax.start(s) < i1; s++) {
        uint64_t n = std::min(i1, ax.end(s)) - std::max(i0, ax.start(s));
        if (n > 0)
            whole_suffix(a + 1, writer + s * step_[a], n, sink);
    }
}

// Every slot of the axes from a on, `times` over.
void BoxRegion::whole_suffix(size_t a, uint64_t writer, uint64_t times, CoverSink& sink) const
{
    const AxisSlots& ax = axes_[a];
    if (a + 1 == dims_.size()) {
        if (step_[a] == 0)
            return sink.writers(writer, 1, 0, times * ax.total());
        ax.equal_runs(0, ax.count(), [&](uint64_t first_slot, uint64_t n, uint64_t extent) {
            if (extent > 0)
                sink.writers(writer + first_slot * step_[a], n, step_[a], times * extent);
        });
        return;
    }
    if (step_[a] == 0)
        return whole_suffix(a + 1, writer, times * ax.total(), sink);
    for (uint64_t s = 0; s < ax.count(); s++)
        if (ax.extent(s) > 0)
            whole_suffix(a + 1, writer + s * step_[a], times * ax.extent(s), sink);
}

std::shared_ptr<const Region> decomposition_region(uint64_t base, const std::vector<uint64_t>& dims,
                                                   uint64_t element_bytes, const Dataset& decomposition,
                                                   const std::vector<uint64_t>& origin)
{
    size_t nd = dims.size();
    std::vector<uint64_t> bytes_dims = dims;
    bytes_dims[nd - 1] *= element_bytes;
    std::vector<AxisSlots> axes;
    std::vector<uint64_t> step(nd, 1);
    for (size_t a = nd - 1; a-- > 0;)
        step[a] = step[a + 1] * decomposition.grid[a + 1];
    for (size_t a = 0; a < nd; a++)
        axes.push_back(AxisSlots::listed(decomposition.extents[a], origin.empty() ? 0 : origin[a],
                                         a + 1 == nd ? element_bytes : 1));
    return std::make_shared<BoxRegion>(base, std::move(bytes_dims), std::move(axes), std::move(step), 0,
                                       decomposition.writers());
}

}  // namespace iosim
