#include "fs/lustre_client.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace iosim {

namespace {

int moved(int target, const std::vector<int>& moved_to)
{
    return moved_to.empty() ? target : moved_to[static_cast<size_t>(target)];
}

bool writes_to_storage(const Phase& phase)
{
    return std::any_of(phase.flows.begin(), phase.flows.end(), [](const Flow& f) { return f.to_target; });
}

}  // namespace

double LustreClient::run(const Phase& phase)
{
    return run(phase, nullptr, {}, true);
}

double LustreClient::run(const Phase& phase, const PhaseLoad* load, const TargetMap& moved_to, bool own_bytes)
{
    if (!moved_to.empty() && !write_back()) {  // timed as it is moved
        Phase there = phase;
        for (Flow& f : there.flows)
            if (f.to_target)
                f.dst = moved(f.dst, moved_to);
        return run(there, nullptr, {}, own_bytes);
    }
    double seconds;
    if (phase.sync && write_back()) {
        flush_window();
        double start = now_;
        wait_for(flushed_at_, flushed_binding_);
        Timing timing = timer_.timed(phase);
        charge(phase, timing);
        seconds = now_ - start + timing.seconds;
        now_ = start;
    } else if (!writes_to_storage(phase)) {
        // A cache that sends as it fills drains during the computation; a page cache's dirty
        // pages wait for their flush (dirty_pages.hpp), which is I/O time again.
        bool draining = (!window_.empty() && !platform_.cache.holds_dirty_pages) || flushed_at_ > now_;
        if (phase.label == "compute" && write_back() && draining)
            drained_in_compute_ = true;
        Timing timing = timer_.timed(phase);
        charge(phase, timing);
        seconds = timing.seconds;
    } else {
        if (!write_back())
            return write_through(phase);
        if (load == nullptr) {
            load_of(phase, load_);
            load = &load_;
        }
        return write_back_phase(phase, *load, moved_to, own_bytes);
    }
    now_ += seconds;
    return seconds;
}

bool LustreClient::all_on_storage() const
{
    return !write_back() || (window_.empty() && flushed_at_ <= now_);
}

bool LustreClient::storage_within_io_time() const
{
    return all_on_storage() && !drained_in_compute_;
}

void LustreClient::charge(const Phase& phase, const Timing& timing)
{
    if (phase.label == "compute")
        return;
    attribution_.charge_fixed(phase.label, phase.fixed_s);
    attribution_.charge(timing.binding, timing.seconds - phase.fixed_s);
}

void LustreClient::wait_for(double until, const PhaseBinding& flush)
{
    if (until > now_) {
        attribution_.charge(flush, until - now_);
        now_ = until;
        events_++;
    }
}

// The writers wait for their extent locks before their data goes into the cache (or out); a
// node's writers wait meanwhile for each other at its range locks, the longer of the two waits.
double LustreClient::lock_wait(const Phase& phase)
{
    if (phase.range_lock_wait_s > phase.lock_wait_s) {
        attribution_.charge(Mechanism::range_locks, phase.range_lock_wait_s);
        return phase.range_lock_wait_s;
    }
    attribution_.charge(Mechanism::lock_waits, phase.lock_wait_s);
    return phase.lock_wait_s;
}

LustreClient::Copy LustreClient::copy_s(const Phase& phase, uint64_t busiest_node_bytes) const
{
    Copy copy;
    if (platform_.cache.process_write_Bps > 0)
        copy.seconds = static_cast<double>(phase.max_process_bytes) / platform_.cache.process_write_Bps;
    // Many small calls cost a process more than their bytes: each is a trip through the
    // library stack and a system call (bench/write_call_cost.py measures it).
    copy.seconds += static_cast<double>(phase.max_process_calls) * platform_.cache.write_call_s;
    double node_s = phase.contended_write_s;
    if (platform_.cache.node_write_Bps > 0)
        node_s = std::max(node_s, static_cast<double>(busiest_node_bytes) / platform_.cache.node_write_Bps);
    if (node_s > copy.seconds)
        copy = {node_s, Mechanism::client_nodes};
    return copy;
}

// No cache: the write ends when its data is on the targets, or when its busiest process has
// pushed it, whichever is later.
double LustreClient::write_through(const Phase& phase)
{
    Timing timing = timer_.timed(phase);
    load_of(phase, load_);
    Copy copy = copy_s(phase, load_.busiest_node_bytes);
    double seconds = timing.seconds;
    if (copy.seconds > seconds - phase.fixed_s) {
        seconds = copy.seconds + phase.fixed_s;
        attribution_.charge_fixed(phase.label, phase.fixed_s);
        attribution_.charge(copy.limit, copy.seconds);
    } else {
        charge(phase, timing);
    }
    seconds += lock_wait(phase);
    now_ += seconds;
    return seconds;
}

bool LustreClient::over_budget(const PhaseLoad& load, bool alone, const TargetMap& moved_to) const
{
    uint64_t budget = platform_.cache.osc_dirty_bytes;
    if (alone || window_.empty())
        return load.busiest_osc_bytes > budget;
    if (fullest_osc_bytes_ + load.busiest_osc_bytes <= budget)
        return false;
    return std::any_of(load.osc_bytes.begin(), load.osc_bytes.end(), [&](const auto& osc_bytes) {
        int target = moved(static_cast<int>(osc_bytes.first & 0xffffffffU), moved_to);
        const Flow* held = window_.find(static_cast<int>(osc_bytes.first >> 32), target);
        return (held ? held->bytes : 0) + osc_bytes.second > budget;
    });
}

// One entry per OSC (a phase may carry several flows of one node to one target), and the most
// bytes one node writes.
void LustreClient::load_of(const Phase& phase, PhaseLoad& into)
{
    std::vector<std::pair<uint64_t, uint64_t>>& osc = into.osc_bytes;
    osc.clear();
    uint64_t most = 0;
    for (const Flow& f : phase.flows) {
        if (!f.to_target)
            continue;
        osc.emplace_back(osc_of(f), f.bytes);
        if (static_cast<size_t>(f.src) >= node_bytes_.size())
            node_bytes_.resize(static_cast<size_t>(f.src) + 1, 0);
        most = std::max(most, node_bytes_[f.src] += f.bytes);
    }
    for (const Flow& f : phase.flows)
        if (f.to_target)
            node_bytes_[f.src] = 0;
    into.busiest_node_bytes = most;
    if (!std::is_sorted(osc.begin(), osc.end()))  // a write phase's flows come in OSC order
        std::sort(osc.begin(), osc.end());
    size_t kept = 0;
    for (size_t i = 0; i < osc.size(); i++) {
        if (kept > 0 && osc[kept - 1].first == osc[i].first)
            osc[kept - 1].second += osc[i].second;
        else
            osc[kept++] = osc[i];
    }
    osc.resize(kept);
    into.busiest_osc_bytes = 0;
    for (const auto& [key, bytes] : osc)
        into.busiest_osc_bytes = std::max(into.busiest_osc_bytes, bytes);
}

void LustreClient::find_overwrites(const Phase& phase)
{
    overwrites_.clear();
    for (const ObjectExtent& e : phase.extents)
        if (uint64_t bytes = dirty_.overwritten(e))
            overwrites_[osc_of(e.node, e.target)] += bytes;
}

// The target's per-request costs go down with the flow's bytes (its requests are fewer).
void LustreClient::take_overwrites(Flow& f)
{
    uint64_t* left = overwrites_.find(osc_of(f));
    if (!left || *left == 0 || f.bytes == 0)
        return;
    uint64_t taken = std::min(f.bytes, *left);
    *left -= taken;
    f.target_busy_s *= static_cast<double>(f.bytes - taken) / static_cast<double>(f.bytes);
    f.bytes -= taken;
    if (overwritten_per_target_.empty())
        overwritten_per_target_.assign(static_cast<size_t>(storage_targets(platform_)), 0);
    overwritten_per_target_[static_cast<size_t>(f.dst)] += taken;
}

void LustreClient::add_to_window(const Phase& phase, const TargetMap& moved_to, bool own_bytes)
{
    last_.flows.clear();
    bool overwrites = own_bytes && !phase.extents.empty();
    if (overwrites)
        find_overwrites(phase);
    for (Flow f : phase.flows) {
        if (!f.to_target)
            continue;
        f.dst = moved(f.dst, moved_to);
        if (overwrites) {
            take_overwrites(f);
            if (f.bytes == 0)
                continue;
        }
        add_flow(f);
        last_.flows.push_back(f);
    }
    last_start_ = now_;
}

void LustreClient::add_flow(const Flow& f)
{
    auto [held, fresh] = window_.try_emplace(f);
    if (!fresh) {
        held->bytes += f.bytes;
        held->target_busy_s += f.target_busy_s;
    }
    fullest_osc_bytes_ = std::max(fullest_osc_bytes_, held->bytes);
}

void LustreClient::copy_ahead(const Phase& phase, const PhaseLoad& load)
{
    Copy copy = copy_s(phase, load.busiest_node_bytes);
    now_ += phase.fixed_s + copy.seconds + lock_wait(phase);
    attribution_.charge_fixed(phase.label, phase.fixed_s);
    attribution_.charge(copy.limit, copy.seconds);
}

LustreClient::BlockWrites LustreClient::block_writes(const std::vector<Phase>& block,
                                                     const std::vector<PhaseLoad>& loads) const
{
    BlockWrites writes;
    writes.whole = write_back();
    FlatMap<Flow> merged;
    for (size_t i = 0; i < block.size() && writes.whole; i++) {
        const Phase& phase = block[i];
        if (phase.repeat == 0)
            continue;
        writes.whole = !phase.sync && writes_to_storage(phase) &&
                       loads[i].busiest_osc_bytes <= platform_.cache.osc_dirty_bytes;
        writes.last = &phase;
        auto n = static_cast<double>(phase.repeat);
        for (const Flow& f : phase.flows) {
            if (!f.to_target)
                continue;
            Flow& held = *merged.try_emplace(osc_of(f), Flow{f.src, f.dst, true}).first;
            held.bytes += phase.repeat * f.bytes;
            held.target_busy_s += n * f.target_busy_s;
        }
    }
    writes.whole = writes.whole && writes.last != nullptr;
    writes.merged = merged.values();
    return writes;
}

bool LustreClient::fits_in_window(const std::vector<Flow>& merged, const TargetMap& moved_to) const
{
    uint64_t budget = platform_.cache.osc_dirty_bytes;
    return std::all_of(merged.begin(), merged.end(), [&](const Flow& f) {
        const Flow* held = window_.find(f.src, moved(f.dst, moved_to));
        return (held ? held->bytes : 0) + f.bytes <= budget;
    });
}

// What write_back_phase() does for each phase of the run, but that the window takes the
// run's writes at once: nothing flushes (fits_in_window), and a later run writes no bytes
// of its own that could overwrite the window's.
void LustreClient::run_whole(const std::vector<Phase>& block, const BlockWrites& writes,
                             const std::vector<PhaseLoad>& loads, const TargetMap& moved_to,
                             std::vector<double>& seconds)
{
    if (window_.empty())
        window_start_ = now_;
    for (Flow f : writes.merged) {
        f.dst = moved(f.dst, moved_to);
        add_flow(f);
    }
    for (size_t i = 0; i < block.size(); i++)
        for (uint64_t r = 0; r < block[i].repeat; r++) {
            double start = now_;
            last_start_ = now_;
            copy_ahead(block[i], loads[i]);
            seconds[i] += now_ - start;
        }
    last_.flows.clear();
    for (Flow f : writes.last->flows)
        if (f.to_target) {
            f.dst = moved(f.dst, moved_to);
            last_.flows.push_back(f);
        }
}

double LustreClient::write_back_phase(const Phase& phase, const PhaseLoad& load, const TargetMap& moved_to,
                                      bool own_bytes)
{
    double start = now_;
    // No room in some OSC: the open window goes out, and the next writes wait until the window
    // before it is on the targets (the budget holds about one window while another drains).
    if (!window_.empty() && over_budget(load, false, moved_to)) {
        flush_window();
        wait_for(earlier_flushed_at_, earlier_flushed_binding_);
    }
    if (window_.empty())
        window_start_ = now_;
    add_to_window(phase, moved_to, own_bytes);
    copy_ahead(phase, load);
    // A write larger than the budget on its own cannot run ahead of its flush.
    if (over_budget(load, true, moved_to)) {
        flush_window();
        wait_for(flushed_at_, flushed_binding_);
    }
    return now_ - start;
}

// The window's writes flush together, after the previous window (the targets are busy until
// then), starting as their copy starts (the client sends each RPC as it fills); the last write
// cannot be on the targets before its own flush, and at least its last RPC leaves after the copy.
void LustreClient::flush_window()
{
    if (window_.empty())
        return;
    events_++;
    Phase merged;
    merged.label = "write";
    merged.flows = window_.values();
    // In OSC order, whatever the hash table's order.
    std::sort(merged.flows.begin(), merged.flows.end(),
              [](const Flow& a, const Flow& b) { return osc_of(a) < osc_of(b); });
    Timing all_timing = timer_.timed(merged);
    double all = all_timing.seconds;
    double last = timer_.time(last_);
    uint64_t largest = 0;
    for (const Flow& f : last_.flows)
        largest = std::max(largest, f.bytes);
    double last_rpc = largest > 0 ? last * std::min(1.0, static_cast<double>(platform_.fs.rpc_max_bytes) / largest) : 0;
    // A page cache that holds its dirty pages writes them back when told to (dirty_pages.hpp):
    // from now, not from the window's first copy.
    double from = platform_.cache.holds_dirty_pages ? now_ : window_start_;
    double end = std::max({std::max(flushed_at_, from) + all, last_start_ + last, now_ + last_rpc});
    earlier_flushed_at_ = flushed_at_;
    flushed_at_ = end;
    earlier_flushed_binding_ = flushed_binding_;
    flushed_binding_ = all_timing.binding;
    window_.clear();
    fullest_osc_bytes_ = 0;
    dirty_.clear();
}

namespace {

uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

uint64_t bits(double v)
{
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

uint64_t flow_hash(const Flow& f)
{
    uint64_t h = mix(0, static_cast<uint64_t>(static_cast<uint32_t>(f.src)));
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(f.dst)));
    h = mix(h, f.to_target ? 1 : 0);
    h = mix(h, f.bytes);
    return mix(h, bits(f.target_busy_s));
}

}  // namespace

// Without write-back only the application's clock carries over; with it the flushes in flight
// and, while a window is open, when it and its last write started.
std::vector<double> LustreClient::clocks() const
{
    if (!write_back())
        return {now_};
    if (window_.empty())
        return {now_, flushed_at_, earlier_flushed_at_};
    return {now_, flushed_at_, earlier_flushed_at_, window_start_, last_start_};
}

void LustreClient::shift_clocks(double by)
{
    now_ += by;
    if (!write_back())
        return;
    flushed_at_ += by;
    earlier_flushed_at_ += by;
    if (!window_.empty()) {
        window_start_ += by;
        last_start_ += by;
    }
}

void LustreClient::move_targets(const TargetRotation& rotation, long long steps)
{
    if (rotation.none())
        return;
    std::vector<Flow> flows = window_.values();
    window_.clear();
    for (Flow& flow : flows) {
        flow.dst = rotation.moved(flow.dst, steps);
        window_.try_emplace(flow);
    }
    for (Flow& f : last_.flows)
        f.dst = rotation.moved(f.dst, steps);
}

uint64_t LustreClient::state_hash(const TargetRotation& rotation, long long steps) const
{
    uint64_t h = mix(0, write_back() ? 1 : 0);
    if (!write_back())
        return h;
    auto back = [&](Flow f) {
        f.dst = rotation.moved(f.dst, -steps);
        return f;
    };
    uint64_t window = 0;  // the window's OSCs in any order
    for (const Flow& flow : window_.values()) {
        Flow f = back(flow);
        window += flow_hash(f) * 0x100000001b3ULL + osc_of(f);
    }
    h = mix(mix(h, window_.size()), window);
    for (double share : flushed_binding_.share)
        h = mix(h, bits(share));
    for (double share : earlier_flushed_binding_.share)
        h = mix(h, bits(share));
    if (!window_.empty())
        for (const Flow& f : last_.flows)
            h = mix(h, flow_hash(back(f)));
    return h;
}

LustreClient::Stretch LustreClient::stretch_from(const std::vector<double>& seconds) const
{
    return {events_, now_, last_start_, window_.values(), seconds, attribution_};
}

uint64_t LustreClient::extend(const Stretch& s, uint64_t most, std::vector<double>& seconds)
{
    if (events_ != s.events)
        return 0;
    // Entries keep their places in the window: the first ones are those of s.window.
    std::vector<Flow>& window = window_.values();
    uint64_t times = most;
    for (size_t e = 0; e < window.size(); e++) {
        uint64_t added = window[e].bytes - (e < s.window.size() ? s.window[e].bytes : 0);
        if (added > 0)
            times = std::min(times, (platform_.cache.osc_dirty_bytes - window[e].bytes) / added);
    }
    if (times == 0)
        return 0;
    auto n = static_cast<double>(times);
    for (size_t e = 0; e < window.size(); e++) {
        const Flow* before = e < s.window.size() ? &s.window[e] : nullptr;
        window[e].bytes += times * (window[e].bytes - (before ? before->bytes : 0));
        window[e].target_busy_s += n * (window[e].target_busy_s - (before ? before->target_busy_s : 0));
        fullest_osc_bytes_ = std::max(fullest_osc_bytes_, window[e].bytes);
    }
    double took = now_ - s.now;
    now_ += n * took;
    if (last_start_ != s.last_start)  // the window's last write was in the orbit
        last_start_ += n * took;
    attribution_.add(attribution_.since(s.attribution), n);
    for (size_t i = 0; i < seconds.size(); i++)
        seconds[i] += n * (seconds[i] - s.seconds[i]);
    return times;
}

std::vector<double> LustreClient::run_block(const std::vector<Phase>& block, uint64_t times, bool fold,
                                            const TargetRotation& rotation)
{
    bool moves = !rotation.none();
    uint64_t orbit = moves ? rotation.orbit() : 1;
    TargetMap moved_to;  // of the run under way
    std::vector<double> seconds(block.size(), 0);
    // The state after some block runs (`done` of them).
    struct Mark {
        uint64_t done, hash;
        std::vector<double> clocks, seconds;
        TimeAttribution attribution;
    };
    std::vector<Mark> marks;  // in order of done
    std::unordered_map<uint64_t, std::vector<size_t>> seen;  // hash -> its marks
    auto mark_after = [&marks](uint64_t done) -> const Mark* {
        auto it = std::lower_bound(marks.begin(), marks.end(), done,
                                   [](const Mark& m, uint64_t d) { return m.done < d; });
        return it != marks.end() && it->done == done ? &*it : nullptr;
    };
    // Mark b, a period before mark a, moved by the same time as a is moved from b?
    auto shifted = [](const Mark& b, const Mark& a, double lambda) {
        if (a.hash != b.hash || a.clocks.size() != b.clocks.size())
            return false;
        double tolerance = 1e-12 * std::max(1.0, std::fabs(a.clocks[0])) + 1e-9 * std::fabs(lambda);
        for (size_t i = 0; i < a.clocks.size(); i++)
            if (std::fabs(a.clocks[i] - b.clocks[i] - lambda) > tolerance)
                return false;
        return true;
    };
    std::vector<PhaseLoad> loads;  // of the block's phases as they are, once
    if (write_back())
        for (const Phase& ph : block) {
            loads.emplace_back();
            load_of(ph, loads.back());
        }
    // Runs merged only where repetitions fold: unfolded, every phase is run as it is (the
    // answer the folded one is checked against).
    const BlockWrites writes = fold ? block_writes(block, loads) : BlockWrites{};
    bool stretches = fold && write_back();
    uint64_t done = 0, stretch_start = 0;
    Stretch stretch;
    if (stretches)
        stretch = stretch_from(seconds);
    while (done < times) {
        moved_to.clear();
        if (moves && done % orbit != 0)
            for (int t = 0; t < storage_targets(platform_); t++)
                moved_to.push_back(rotation.moved(t, static_cast<long long>(done)));
        if (done > 0 && writes.whole && fits_in_window(writes.merged, moved_to))
            run_whole(block, writes, loads, moved_to, seconds);
        else
            for (size_t i = 0; i < block.size(); i++)
                for (uint64_t r = 0; r < block[i].repeat; r++)
                    seconds[i] += run(block[i], loads.empty() ? nullptr : &loads[i], moved_to, done == 0);
        done++;
        if (stretches && (events_ != stretch.events || done - stretch_start == orbit)) {
            done += orbit * extend(stretch, (times - done) / orbit, seconds);
            stretch_start = done;
            stretch = stretch_from(seconds);
        }
        // A period is whole orbits, so marks a period apart are as far from a whole orbit:
        // marking only after whole orbits finds each period, at most an orbit later, and
        // hashes the window (IO500: tens of thousands of OSCs) once an orbit, not once a run.
        if (!fold || done % orbit != 0)
            continue;
        Mark m{done, state_hash(rotation, static_cast<long long>(done)), clocks(), seconds, attribution_};
        std::vector<size_t>& at = seen[m.hash];
        for (auto it = at.rbegin(); it != at.rend(); ++it) {
            const Mark& a = marks[*it];
            uint64_t q = done - a.done;  // blocks from mark a to this one
            if (a.done < q)
                break;
            const Mark* b = mark_after(a.done - q);
            if (q % orbit != 0 || b == nullptr)
                continue;
            double lambda = m.clocks[0] - a.clocks[0];
            if (!shifted(a, m, lambda) || !shifted(*b, a, lambda))
                continue;
            uint64_t periods = (times - done) / q;
            if (periods == 0)
                break;
            double n = static_cast<double>(periods);
            shift_clocks(n * lambda);
            move_targets(rotation, static_cast<long long>(periods * q));
            attribution_.add(m.attribution.since(a.attribution), n);
            for (size_t i = 0; i < seconds.size(); i++)
                seconds[i] += n * (m.seconds[i] - a.seconds[i]);
            done += periods * q;
            fold = stretches = false;
            break;
        }
        at.push_back(marks.size());
        marks.push_back(std::move(m));
    }
    return seconds;
}

}  // namespace iosim
