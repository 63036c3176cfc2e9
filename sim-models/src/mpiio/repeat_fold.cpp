#include "mpiio/repeat_fold.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

namespace iosim {

namespace {

// What one repetition added to the breakdown: its counters, its numeric vectors element by
// element, and the entries it appended (per call: aggregators, write paths).
struct Added {
    uint64_t rpcs = 0, lock_conflicts = 0, rounds = 0, shuffle_bytes = 0, sieve_read_bytes = 0, payload_bytes = 0,
             file_bytes = 0;
    PosixCalls posix;
    std::vector<uint64_t> per_target, per_node, per_process;
    std::vector<int> aggregators;
    std::vector<WritePath> write_paths;
};

// The breakdown before a repetition: its counters and vectors, and how long the appended
// lists were.
struct Before {
    Breakdown counters;  // without the appended lists
    size_t aggregators = 0, write_paths = 0;
};

Before snapshot(const Breakdown& bd)
{
    Before b;
    b.counters.rpcs = bd.rpcs;
    b.counters.lock_conflicts = bd.lock_conflicts;
    b.counters.rounds = bd.rounds;
    b.counters.shuffle_bytes = bd.shuffle_bytes;
    b.counters.sieve_read_bytes = bd.sieve_read_bytes;
    b.counters.payload_bytes = bd.payload_bytes;
    b.counters.file_bytes = bd.file_bytes;
    b.counters.posix = bd.posix;
    b.counters.bytes_per_target = bd.bytes_per_target;
    b.counters.bytes_per_node = bd.bytes_per_node;
    b.counters.bytes_per_process = bd.bytes_per_process;
    b.aggregators = bd.aggregators.size();
    b.write_paths = bd.write_paths.size();
    return b;
}

std::vector<uint64_t> minus(const std::vector<uint64_t>& after, const std::vector<uint64_t>& before)
{
    std::vector<uint64_t> d(after);
    for (size_t i = 0; i < before.size() && i < d.size(); i++)
        d[i] -= before[i];
    return d;
}

Added added_since(const Breakdown& bd, const Before& b)
{
    Added a;
    a.rpcs = bd.rpcs - b.counters.rpcs;
    a.lock_conflicts = bd.lock_conflicts - b.counters.lock_conflicts;
    a.rounds = bd.rounds - b.counters.rounds;
    a.shuffle_bytes = bd.shuffle_bytes - b.counters.shuffle_bytes;
    a.sieve_read_bytes = bd.sieve_read_bytes - b.counters.sieve_read_bytes;
    a.payload_bytes = bd.payload_bytes - b.counters.payload_bytes;
    a.file_bytes = bd.file_bytes - b.counters.file_bytes;
    a.posix.writes = bd.posix.writes - b.counters.posix.writes;
    a.posix.metadata_writes = bd.posix.metadata_writes - b.counters.posix.metadata_writes;
    a.posix.reads = bd.posix.reads - b.counters.posix.reads;
    a.posix.read_bytes = bd.posix.read_bytes - b.counters.posix.read_bytes;
    for (size_t i = 0; i < a.posix.write_sizes.size(); i++)
        a.posix.write_sizes[i] = bd.posix.write_sizes[i] - b.counters.posix.write_sizes[i];
    a.per_target = minus(bd.bytes_per_target, b.counters.bytes_per_target);
    a.per_node = minus(bd.bytes_per_node, b.counters.bytes_per_node);
    a.per_process = minus(bd.bytes_per_process, b.counters.bytes_per_process);
    a.aggregators.assign(bd.aggregators.begin() + static_cast<long>(b.aggregators), bd.aggregators.end());
    a.write_paths.assign(bd.write_paths.begin() + static_cast<long>(b.write_paths), bd.write_paths.end());
    return a;
}

void add_times(std::vector<uint64_t>& into, const std::vector<uint64_t>& added, uint64_t n)
{
    if (into.size() < added.size())
        into.resize(added.size(), 0);
    for (size_t i = 0; i < added.size(); i++)
        into[i] += n * added[i];
}

void add_to(Breakdown& bd, const Added& a, uint64_t n, bool targets = true)
{
    bd.rpcs += n * a.rpcs;
    bd.lock_conflicts += n * a.lock_conflicts;
    bd.rounds += n * a.rounds;
    bd.shuffle_bytes += n * a.shuffle_bytes;
    bd.sieve_read_bytes += n * a.sieve_read_bytes;
    bd.payload_bytes += n * a.payload_bytes;
    bd.file_bytes += n * a.file_bytes;
    bd.posix.writes += n * a.posix.writes;
    bd.posix.metadata_writes += n * a.posix.metadata_writes;
    bd.posix.reads += n * a.posix.reads;
    bd.posix.read_bytes += n * a.posix.read_bytes;
    for (size_t i = 0; i < a.posix.write_sizes.size(); i++)
        bd.posix.write_sizes[i] += n * a.posix.write_sizes[i];
    if (targets)
        add_times(bd.bytes_per_target, a.per_target, n);
    add_times(bd.bytes_per_node, a.per_node, n);
    add_times(bd.bytes_per_process, a.per_process, n);
    for (uint64_t k = 0; k < n; k++) {
        bd.aggregators.insert(bd.aggregators.end(), a.aggregators.begin(), a.aggregators.end());
        bd.write_paths.insert(bd.write_paths.end(), a.write_paths.begin(), a.write_paths.end());
    }
}

// FNV-1a over the bytes of what a repetition did.
class Hash {
public:
    void bytes(const void* data, size_t n)
    {
        const auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; i++)
            h_ = (h_ ^ p[i]) * 1099511628211ULL;
    }
    template <typename T>
    void value(const T& v)
    {
        bytes(&v, sizeof v);
    }
    void text(const std::string& s)
    {
        value(s.size());
        bytes(s.data(), s.size());
    }
    template <typename T>
    void values(const std::vector<T>& v)
    {
        value(v.size());
        if (!v.empty())
            bytes(v.data(), v.size() * sizeof(T));
    }
    uint64_t get() const { return h_; }

private:
    uint64_t h_ = 1469598103934665603ULL;
};

// A shared file's targets moved `steps` steps of `rot` (back, with steps < 0).
std::vector<uint64_t> moved(const std::vector<uint64_t>& per_target, const TargetRotation& rot, long long steps)
{
    if (rot.none())
        return per_target;
    std::vector<uint64_t> out(per_target.size(), 0);
    for (size_t t = 0; t < per_target.size(); t++)
        if (per_target[t] != 0)
            out[static_cast<size_t>(rot.moved(static_cast<int>(t), steps))] += per_target[t];
    return out;
}

// A later repetition's phase: its targets moved, and its bytes elsewhere in the file than the
// planned one's, which are not known (its extents dropped: dirty_pages.hpp counts none of them
// as overwritten).
Phase moved(const Phase& ph, const TargetRotation& rot, long long steps)
{
    Phase out = ph;
    if (steps != 0)
        out.extents.clear();
    if (!rot.none())
        for (Flow& f : out.flows)
            if (f.to_target)
                f.dst = rot.moved(f.dst, steps);
    return out;
}

// `per_target` moved 1, 2, ..., n steps of `rot`, each added: whole orbits at once.
void add_moved(std::vector<uint64_t>& into, const std::vector<uint64_t>& per_target, const TargetRotation& rot,
               uint64_t n)
{
    if (rot.none()) {
        add_times(into, per_target, n);
        return;
    }
    uint64_t orbit = rot.orbit();
    for (uint64_t j = 1; j <= std::min(n, orbit); j++)
        add_times(into, moved(per_target, rot, static_cast<long long>(j)), (n - j) / orbit + 1);
}

// The hash of what a repetition did, its targets moved `steps` back along `rot` (the frame in
// which repetitions a rotation apart are equal).
uint64_t hash_of(const std::vector<Phase>& phases, const Added& a, const TargetRotation& rot, long long steps)
{
    Hash h;
    for (const Phase& ph : phases) {
        h.text(ph.label);
        h.value(ph.fixed_s);
        h.value(ph.repeat);
        h.value(ph.max_process_bytes);
        h.value(ph.max_process_calls);
        h.value(ph.contended_write_s);
        h.value(ph.lock_wait_s);
        h.value(ph.range_lock_wait_s);
        h.value(ph.sync);
        // The flows as a set: moving targets reorders a phase's flows by target.
        uint64_t flows = 0;
        for (const Flow& f : ph.flows) {
            Hash one;
            one.value(f.src);
            one.value(f.to_target ? rot.moved(f.dst, -steps) : f.dst);
            one.value(f.to_target);
            one.value(f.bytes);
            one.value(f.target_busy_s);
            uint64_t x = one.get();
            x ^= x >> 31;
            x *= 0x7fb5d329728ea185ULL;
            x ^= x >> 27;
            flows += x;
        }
        h.value(ph.flows.size());
        h.value(flows);
    }
    h.value(a.rpcs);
    h.value(a.lock_conflicts);
    h.value(a.rounds);
    h.value(a.shuffle_bytes);
    h.value(a.sieve_read_bytes);
    h.value(a.payload_bytes);
    h.value(a.file_bytes);
    h.value(a.posix.writes);
    h.value(a.posix.metadata_writes);
    h.value(a.posix.reads);
    h.value(a.posix.read_bytes);
    h.value(a.posix.write_sizes);
    h.values(steps == 0 ? a.per_target : moved(a.per_target, rot, -steps));
    h.values(a.per_node);
    h.values(a.per_process);
    h.values(a.aggregators);
    h.values(a.write_paths);
    return h.get();
}

// Whether the last q hashes each equal the one q before them.
bool periodic(const std::vector<uint64_t>& hashes, uint64_t q)
{
    size_t n = hashes.size();
    if (q == 0 || n < 2 * q)
        return false;
    for (size_t t = 0; t < q; t++)
        if (hashes[n - 1 - t] != hashes[n - 1 - t - q])
            return false;
    return true;
}

constexpr size_t occurrences_kept = 16;
// The most flows a block of a whole orbit of moved periods may hold (40 B each).
constexpr uint64_t max_orbit_flows = uint64_t{1} << 21;  // per hash: the periods tried are the distances to these

struct Repetition {
    std::vector<Phase> phases;
    Added added;
    uint64_t hash = 0;
};

}  // namespace

void fold_repetitions(const MpiIoContext& ctx, uint64_t times,
                      const std::function<void(uint64_t, const MpiIoContext&)>& plan, const StripeShift& shift)
{
    const TargetRotation& rot = shift.rotation;
    uint64_t step_reps = rot.none() ? 1 : std::max<uint64_t>(1, shift.period);
    auto steps_at = [&](uint64_t k) { return static_cast<long long>(k / step_reps); };
    std::vector<Phase> captured;
    MpiIoContext capture = ctx;
    capture.sink = [&captured](Phase&& ph) { captured.push_back(std::move(ph)); };
    auto planned = [&](uint64_t k) {
        Before before = snapshot(ctx.breakdown);
        captured.clear();
        plan(k, capture);
        Repetition r;
        r.added = added_since(ctx.breakdown, before);
        r.hash = hash_of(captured, r.added, rot, rot.none() ? 0 : steps_at(k));
        r.phases = std::move(captured);
        captured = {};
        return r;
    };
    std::vector<uint64_t> hashes;
    std::unordered_map<uint64_t, std::vector<uint64_t>> seen;  // hash -> its last repetitions
    uint64_t k = 0;
    while (k < times) {
        Repetition r = planned(k);
        for (Phase& ph : r.phases)
            ctx.sink(std::move(ph));
        hashes.push_back(r.hash);
        std::vector<uint64_t>& at = seen[r.hash];
        uint64_t period = 0;
        for (auto it = at.rbegin(); it != at.rend() && period == 0; ++it)
            if ((k - *it) % step_reps == 0 && periodic(hashes, k - *it))
                period = k - *it;
        at.push_back(k);
        if (at.size() > occurrences_kept)
            at.erase(at.begin());
        k++;
        if (period == 0 || times - k < 2 * period)
            continue;
        // The next period, planned, is the block; every period after it is the same.
        std::vector<Repetition> block;
        bool same = true;
        for (uint64_t t = 0; t < period; t++, k++) {
            block.push_back(planned(k));
            hashes.push_back(block.back().hash);
            same = same && block.back().hash == hashes[hashes.size() - 1 - period];
        }
        if (!same) {  // not periodic after all: what was planned goes out as it is
            for (Repetition& b : block)
                for (Phase& ph : b.phases)
                    ctx.sink(std::move(ph));
            continue;
        }
        uint64_t more = (times - k) / period, rest = (times - k) % period;
        // Each later period is the block moved one step of `moves` further.
        TargetRotation moves = rot;
        moves.per_step = rot.none() ? 0 : rot.per_step * (period / step_reps);
        std::vector<Phase> phases;
        std::vector<uint64_t> block_targets;
        for (const Repetition& b : block) {
            phases.insert(phases.end(), b.phases.begin(), b.phases.end());
            add_times(block_targets, b.added.per_target, 1);
            add_to(ctx.breakdown, b.added, more, false);
        }
        add_moved(ctx.breakdown.bytes_per_target, block_targets, moves, more);
        uint64_t orbit = moves.orbit(), flows = 0;
        for (const Phase& ph : phases)
            flows += ph.flows.size();
        if (ctx.blocks && !moves.none() && orbit * flows <= max_orbit_flows) {
            // A whole orbit of moved periods is a block that repeats as it is: the client folds
            // it without moving its state.
            std::vector<Phase> whole;
            for (uint64_t j = 0; j < orbit; j++)
                for (const Phase& ph : phases)
                    whole.push_back(moved(ph, moves, static_cast<long long>(j)));
            uint64_t orbits = (1 + more) / orbit;
            if (orbits > 0)
                ctx.blocks(whole, orbits, TargetRotation{});
            for (uint64_t j = orbits * orbit; j <= more; j++)
                for (const Phase& ph : phases)
                    ctx.sink(moved(ph, moves, static_cast<long long>(j)));
        } else if (ctx.blocks) {
            ctx.blocks(phases, 1 + more, moves);
        } else {
            for (uint64_t n = 0; n <= more; n++)
                for (const Phase& ph : phases)
                    ctx.sink(moved(ph, moves, static_cast<long long>(n)));
        }
        for (uint64_t t = 0; t < rest; t++) {
            for (const Phase& ph : block[t].phases)
                ctx.sink(moved(ph, moves, static_cast<long long>(more + 1)));
            add_to(ctx.breakdown, block[t].added, 1, false);
            add_times(ctx.breakdown.bytes_per_target,
                      moved(block[t].added.per_target, moves, static_cast<long long>(more + 1)), 1);
        }
        return;
    }
}

}  // namespace iosim
