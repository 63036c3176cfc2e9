#include "mpiio/collective_buffering.hpp"

#include <algorithm>
#include <optional>

namespace iosim {

namespace {

class ContiguousDomain : public FileDomain {
public:
    ContiguousDomain(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, uint64_t per_round)
        : per_round_(per_round)
    {
        for (auto [start, end] : ranges) {
            cursor_.push_back(start);
            end_.push_back(end);
        }
    }
    bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) override
    {
        if (cursor_[a] >= end_[a])
            return false;
        uint64_t stop = std::min(end_[a], cursor_[a] + per_round_);
        out.emplace_back(cursor_[a], stop);
        cursor_[a] = stop;
        return true;
    }

private:
    uint64_t per_round_;
    std::vector<uint64_t> cursor_, end_;
};

class UnitCyclicDomain : public FileDomain {
public:
    UnitCyclicDomain(uint64_t lo, uint64_t hi, int naggs, uint64_t unit, uint64_t per_round, bool whole_units)
        : lo_(lo), hi_(hi), naggs_(naggs), unit_(unit), per_round_(std::max<uint64_t>(1, per_round)),
          whole_units_(whole_units)
    {
        uint64_t first = lo / unit;
        for (int a = 0; a < naggs; a++) {
            next_unit_.push_back(first + ((a - first % naggs) + naggs) % naggs);
            done_in_unit_.push_back(0);
        }
    }
    bool next(int a, std::vector<std::pair<uint64_t, uint64_t>>& out) override
    {
        uint64_t& s = next_unit_[a];
        uint64_t& done = done_in_unit_[a];
        if (s * unit_ >= hi_)
            return false;
        uint64_t units = std::max<uint64_t>(1, per_round_ / unit_), budget = per_round_;
        while (s * unit_ < hi_ && (whole_units_ ? units > 0 : budget > 0)) {
            uint64_t start = std::max(lo_, s * unit_ + done), end = std::min(hi_, (s + 1) * unit_);
            if (!whole_units_)
                end = std::min(end, start + budget);
            out.emplace_back(start, end);
            budget -= std::min(budget, end - start);
            done = end - s * unit_;
            if (end == std::min(hi_, (s + 1) * unit_)) {
                s += naggs_;
                done = 0;
                units--;
            }
        }
        return true;
    }

private:
    uint64_t lo_, hi_;
    uint64_t naggs_, unit_, per_round_;
    bool whole_units_;
    std::vector<uint64_t> next_unit_, done_in_unit_;
};

struct BufferedFile {
    OpenFile* file;
    BufferingPlan plan;
    std::vector<PieceSet::Cover> covers;  // per aggregator: its walk through the call's pieces
    WritePhaseBuilder* writes;  // one round's writes at a time
    std::vector<std::pair<uint64_t, uint64_t>> intervals;  // scratch: an aggregator's intervals in a round
};

BufferedFile start_file(const MpiIoContext& ctx, OpenFile* f, const PieceSet& pieces, const PlanFile& plan,
                        size_t index)
{
    WriterExtent range = pieces.extent();
    BufferedFile t{f, plan(*f, range.first, range.end, pieces), {}, &ctx.builders->bound(index, *f), {}};
    t.covers.reserve(t.plan.aggregators.size());
    for (size_t a = 0; a < t.plan.aggregators.size(); a++)
        t.covers.emplace_back(pieces);
    ctx.breakdown.aggregators.push_back(static_cast<int>(t.plan.aggregators.size()));
    return t;
}

// A round's shuffle: per aggregator, the bytes each source (a node, or a rank when not
// aggregated) sends it. Entries are found through an array over sources while the aggregator
// is current, and sorted into (source, aggregator node) order when the round ends.
class RoundBuilders {
public:
    double local_copy_s = 0;

    Flow& flow(int key, int agg_node)
    {
        if (static_cast<size_t>(key) >= slot_.size())
            slot_.resize(static_cast<size_t>(key) + 1, -1);
        int& slot = slot_[key];
        if (slot < 0) {
            slot = static_cast<int>(entries_.size());
            touched_.push_back(key);
            entries_.emplace_back(static_cast<uint64_t>(static_cast<uint32_t>(key)) << 32 |
                                      static_cast<uint32_t>(agg_node),
                                  Flow{});
        }
        return entries_[slot].second;
    }
    void end_aggregator()
    {
        for (int key : touched_)
            slot_[key] = -1;
        touched_.clear();
    }
    // The round's flows in (source, aggregator node) order, one per pair; the builder is then
    // ready for the next round.
    std::vector<Flow> take_flows()
    {
        end_aggregator();
        std::sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Flow> out;
        out.reserve(entries_.size());
        for (size_t i = 0; i < entries_.size(); i++) {
            if (i > 0 && entries_[i].first == entries_[i - 1].first)  // two aggregators on one node
                out.back().bytes += entries_[i].second.bytes;
            else
                out.push_back(entries_[i].second);
        }
        entries_.clear();
        local_copy_s = 0;
        return out;
    }

private:
    std::vector<std::pair<uint64_t, Flow>> entries_;
    std::vector<int> slot_;  // source key -> entry of the current aggregator, -1 if none
    std::vector<int> touched_;
};

// One aggregator's gathering in one interval of its domain: the bytes each source sends it
// (a node's ranks as one flow when aggregated), what stays on its own node, and what it holds.
class Gather : public CoverSink {
public:
    Gather(const MpiIoContext& ctx, const OpenFile& f, int agg_node, RoundBuilders& rb)
        : ctx_(ctx), f_(f), agg_node_(agg_node), rb_(rb)
    {
    }
    void writers(uint64_t first, uint64_t count, uint64_t step, uint64_t bytes) override
    {
        data += count * bytes;
        if (step == 0)
            return from(first, count * bytes);
        uint64_t last = first + (count - 1) * step;
        if (ctx_.aggregate && step == 1) {  // a node's consecutive writers at once
            for (uint64_t w = first; w <= last;) {
                uint64_t next = std::min<uint64_t>(last + 1, f_.node_run_end[w]);
                from(w, (next - w) * bytes);
                w = next;
            }
            return;
        }
        for (uint64_t w = first; w <= last; w += step)
            from(w, bytes);
    }
    uint64_t data = 0, local_bytes = 0;

private:
    void from(uint64_t writer, uint64_t bytes)
    {
        int src_node = f_.node_of_writer[writer];
        if (src_node == agg_node_) {
            local_bytes += bytes;
            return;
        }
        int key = ctx_.aggregate ? src_node : f_.rank_of_writer[writer];
        Flow& fl = rb_.flow(key, agg_node_);
        fl.src = src_node;
        fl.dst = agg_node_;
        fl.bytes += bytes;
        ctx_.breakdown.shuffle_bytes += bytes;
    }

    const MpiIoContext& ctx_;
    const OpenFile& f_;
    int agg_node_;
    RoundBuilders& rb_;
};

// One aggregator's share of a round: gather what falls in its intervals, then write it.
// Returns whether it had anything to do.
bool aggregator_round(const MpiIoContext& ctx, BufferedFile& t, int a, RoundBuilders& rb, WritePhaseBuilder& wb)
{
    std::vector<std::pair<uint64_t, uint64_t>>& intervals = t.intervals;
    intervals.clear();
    if (!t.plan.domain->next(a, intervals))
        return false;
    OpenFile& f = *t.file;
    int agg_writer = t.plan.aggregators[a];
    int agg_node = f.node_of_writer[agg_writer];
    uint64_t local_bytes = 0, filled = 0;
    for (auto [lo, hi] : intervals) {
        Gather gather(ctx, f, agg_node, rb);
        t.covers[a].cover(lo, hi, gather);
        local_bytes += gather.local_bytes;
        if (gather.data == 0)
            continue;
        uint64_t first = t.plan.whole_rounds ? lo : gather.first, last = t.plan.whole_rounds ? hi : gather.end;
        filled += last - first;
        // Holes in the collective buffer: the span is read first (read-modify-write), from the
        // client's cache where the platform gives that rate (the pages this run wrote there).
        bool holes = gather.data < last - first;
        const Platform& p = ctx.platform;
        double read_Bps = p.cache.cached_read_Bps > 0 ? p.cache.cached_read_Bps : p.fs.target_Bps;
        double read_s = holes ? static_cast<double>(last - first) / read_Bps : 0;
        if (holes)
            ctx.breakdown.posix.read(last - first);
        ctx.breakdown.posix.write(last - first);
        wb.add(agg_node, agg_node, f.rank_of_writer[agg_writer], first, last - first, read_s);
    }
    double copy_s = static_cast<double>(local_bytes) / ctx.platform.network.memcpy_Bps;
    rb.local_copy_s = std::max(rb.local_copy_s, copy_s + f.buffers.fill(ctx.platform.network, agg_writer, filled));
    rb.end_aggregator();
    return true;
}

}  // namespace

std::vector<std::pair<uint64_t, uint64_t>> even_ranges(uint64_t lo, uint64_t hi, int naggs, uint64_t align)
{
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    uint64_t size = (hi - lo + naggs - 1) / naggs;
    uint64_t start = lo;
    for (int a = 0; a < naggs; a++) {
        uint64_t end = std::min(hi, lo + size * (a + 1));
        if (align > 1 && end < hi)
            end = std::min(hi, (end + align - 1) / align * align);
        end = std::max(end, start);
        ranges.emplace_back(start, end);
        start = end;
    }
    return ranges;
}

std::unique_ptr<FileDomain> ranges_domain(const std::vector<std::pair<uint64_t, uint64_t>>& ranges,
                                          uint64_t per_round)
{
    return std::make_unique<ContiguousDomain>(ranges, per_round);
}

std::unique_ptr<FileDomain> contiguous_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t align, uint64_t per_round)
{
    return ranges_domain(even_ranges(lo, hi, naggs, align), per_round);
}

std::unique_ptr<FileDomain> unit_cyclic_domain(uint64_t lo, uint64_t hi, int naggs, uint64_t unit, uint64_t per_round,
                                               bool whole_units)
{
    return std::make_unique<UnitCyclicDomain>(lo, hi, naggs, unit, per_round, whole_units);
}

void buffered_write(const MpiIoContext& ctx, const WriteCall& call, const PlanFile& plan, RoundStyle style)
{
    std::vector<BufferedFile> files;
    for (size_t i = 0; i < call.files.size(); i++)
        if (!call.pieces[i].empty())
            files.push_back(start_file(ctx, call.files[i], call.pieces[i], plan, files.size()));
    std::optional<Phase> writing;  // with overlap: the previous round's writes, still going
    RoundBuilders rb;
    for (;;) {
        bool any = false;
        Phase write;
        write.label = "write";
        for (auto& t : files) {
            for (size_t a = 0; a < t.plan.aggregators.size(); a++)
                any |= aggregator_round(ctx, t, static_cast<int>(a), rb, *t.writes);
            add_flows(write, t.writes->finish("write", 0));
        }
        if (!any)
            break;
        ctx.breakdown.rounds++;
        Phase shuffle;
        shuffle.label = "write";
        shuffle.fixed_s = rb.local_copy_s;
        if (style.exchange_collective)
            shuffle.fixed_s += collective_overhead_s(ctx.platform, ctx.total_ranks, ctx.oversubscription);
        shuffle.flows = rb.take_flows();
        if (!style.overlap) {
            ctx.sink(std::move(shuffle));
            ctx.sink(std::move(write));
            continue;
        }
        if (writing)
            add_flows(shuffle, std::move(*writing));
        ctx.sink(std::move(shuffle));
        writing = std::move(write);
    }
    if (writing)
        ctx.sink(std::move(*writing));
}

}  // namespace iosim
