#include "lustre_client.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace iosim {

namespace {

uint64_t osc_of(const Flow& f)
{
    return static_cast<uint64_t>(static_cast<uint32_t>(f.src)) << 32 | static_cast<uint32_t>(f.dst);
}

bool writes_to_storage(const Phase& phase)
{
    return std::any_of(phase.flows.begin(), phase.flows.end(), [](const Flow& f) { return f.to_target; });
}

}  // namespace

double LustreClient::run(const Phase& phase)
{
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
        if (phase.label == "compute" && write_back() && (!window_.empty() || flushed_at_ > now_))
            drained_in_compute_ = true;
        Timing timing = timer_.timed(phase);
        charge(phase, timing);
        seconds = timing.seconds;
    } else {
        return write_back() ? write_back_phase(phase) : write_through(phase);
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
    }
}

// The writers wait for their extent locks before their data goes into the cache (or out).
double LustreClient::lock_wait(const Phase& phase)
{
    attribution_.charge(Mechanism::lock_waits, phase.lock_wait_s);
    return phase.lock_wait_s;
}

LustreClient::Copy LustreClient::copy_s(const Phase& phase)
{
    Copy copy;
    if (platform_.cache.process_write_Bps > 0)
        copy.seconds = static_cast<double>(phase.max_process_bytes) / platform_.cache.process_write_Bps;
    // Many small calls cost a process more than their bytes: each is a trip through the
    // library stack and a system call (bench/write_call_cost.py measures it).
    copy.seconds += static_cast<double>(phase.max_process_calls) * platform_.cache.write_call_s;
    if (platform_.cache.node_write_Bps > 0) {
        node_bytes_.clear();
        uint64_t most = 0;
        for (const Flow& f : phase.flows)
            if (f.to_target)
                most = std::max(most, node_bytes_[f.src] += f.bytes);
        double node_s = static_cast<double>(most) / platform_.cache.node_write_Bps;
        if (node_s > copy.seconds)
            copy = {node_s, Mechanism::client_nodes};
    }
    return copy;
}

// No cache: the write ends when its data is on the targets, or when its busiest process has
// pushed it, whichever is later.
double LustreClient::write_through(const Phase& phase)
{
    Timing timing = timer_.timed(phase);
    Copy copy = copy_s(phase);
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

bool LustreClient::over_budget(bool alone) const
{
    return std::any_of(phase_osc_.begin(), phase_osc_.end(), [&](const auto& osc_bytes) {
        auto it = window_.find(osc_bytes.first);
        uint64_t cached = alone || it == window_.end() ? 0 : it->second.bytes;
        return cached + osc_bytes.second > platform_.cache.osc_dirty_bytes;
    });
}

// One entry per OSC: a phase may carry several flows of one node to one target.
void LustreClient::load_oscs(const Phase& phase)
{
    phase_osc_.clear();
    for (const Flow& f : phase.flows)
        if (f.to_target)
            phase_osc_.emplace_back(osc_of(f), f.bytes);
    std::sort(phase_osc_.begin(), phase_osc_.end());
    size_t kept = 0;
    for (size_t i = 0; i < phase_osc_.size(); i++) {
        if (kept > 0 && phase_osc_[kept - 1].first == phase_osc_[i].first)
            phase_osc_[kept - 1].second += phase_osc_[i].second;
        else
            phase_osc_[kept++] = phase_osc_[i];
    }
    phase_osc_.resize(kept);
}

void LustreClient::add_to_window(const Phase& phase)
{
    last_.flows.clear();
    for (const Flow& f : phase.flows) {
        if (!f.to_target)
            continue;
        auto [it, fresh] = window_.try_emplace(osc_of(f), f);
        if (!fresh) {
            it->second.bytes += f.bytes;
            it->second.target_busy_s += f.target_busy_s;
        }
        last_.flows.push_back(f);
    }
    last_start_ = now_;
}

double LustreClient::write_back_phase(const Phase& phase)
{
    double start = now_;
    load_oscs(phase);
    // No room in some OSC: the open window goes out, and the next writes wait until the window
    // before it is on the targets (the budget holds about one window while another drains).
    if (!window_.empty() && over_budget(false)) {
        flush_window();
        wait_for(earlier_flushed_at_, earlier_flushed_binding_);
    }
    if (window_.empty())
        window_start_ = now_;
    add_to_window(phase);
    Copy copy = copy_s(phase);
    now_ += phase.fixed_s + copy.seconds + lock_wait(phase);
    attribution_.charge_fixed(phase.label, phase.fixed_s);
    attribution_.charge(copy.limit, copy.seconds);
    // A write larger than the budget on its own cannot run ahead of its flush.
    if (over_budget(true)) {
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
    Phase merged;
    merged.label = "write";
    for (const auto& [osc, flow] : window_)
        merged.flows.push_back(flow);
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
    double end = std::max({std::max(flushed_at_, window_start_) + all, last_start_ + last, now_ + last_rpc});
    earlier_flushed_at_ = flushed_at_;
    flushed_at_ = end;
    earlier_flushed_binding_ = flushed_binding_;
    flushed_binding_ = all_timing.binding;
    window_.clear();
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
    std::unordered_map<uint64_t, Flow> moved;
    for (auto [osc, flow] : window_) {
        flow.dst = rotation.moved(flow.dst, steps);
        moved.emplace(osc_of(flow), flow);
    }
    window_ = std::move(moved);
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
    for (const auto& [osc, flow] : window_) {
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

std::vector<double> LustreClient::run_block(const std::vector<Phase>& block, uint64_t times, bool fold,
                                            const TargetRotation& rotation)
{
    bool moves = !rotation.none();
    uint64_t orbit = moves ? rotation.orbit() : 1;
    std::vector<Phase> moved_block;
    std::vector<double> seconds(block.size(), 0);
    // The state after each block run so far.
    struct Mark {
        uint64_t hash;
        std::vector<double> clocks, seconds;
        TimeAttribution attribution;
    };
    std::vector<Mark> marks;
    std::unordered_map<uint64_t, std::vector<size_t>> seen;  // hash -> its marks
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
    uint64_t done = 0;
    while (done < times) {
        const std::vector<Phase>* phases = &block;
        if (moves && done % orbit != 0) {
            moved_block = block;
            for (Phase& ph : moved_block)
                for (Flow& f : ph.flows)
                    if (f.to_target)
                        f.dst = rotation.moved(f.dst, static_cast<long long>(done));
            phases = &moved_block;
        }
        for (size_t i = 0; i < phases->size(); i++)
            for (uint64_t r = 0; r < (*phases)[i].repeat; r++)
                seconds[i] += run((*phases)[i]);
        done++;
        if (!fold)
            continue;
        Mark m{state_hash(rotation, static_cast<long long>(done)), clocks(), seconds, attribution_};
        std::vector<size_t>& at = seen[m.hash];
        for (auto it = at.rbegin(); it != at.rend(); ++it) {
            const Mark& a = marks[*it];
            uint64_t q = marks.size() - *it;  // blocks from mark a to this one
            if (*it < q)
                break;
            if (q % orbit != 0)
                continue;
            const Mark& b = marks[*it - q];
            double lambda = m.clocks[0] - a.clocks[0];
            if (!shifted(a, m, lambda) || !shifted(b, a, lambda))
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
            fold = false;
            break;
        }
        at.push_back(marks.size());
        marks.push_back(std::move(m));
    }
    return seconds;
}

}  // namespace iosim
