#include "fs/striping.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "fs/contended_writes.hpp"
#include "fs/dirty_pages.hpp"
#include "fs/partial_stripe_writes.hpp"

namespace iosim {

Striping file_striping(const Platform& p, const FileSettings& s, int instance)
{
    Striping st;
    if (p.fs.gpfs) {  // every target, round-robin by block
        st.count = p.fs.targets;
        st.size = p.fs.lock_block_bytes;
        st.extents.push_back({UINT64_MAX, st.count, st.size, 0, 0, p.fs.targets, -1});
        return st;
    }
    st.count = s.stripe_count;
    st.size = s.stripe_size;
    // Each instance's objects start where the previous instance's ended, component by
    // component, on each component's pool (Lustre's round-robin allocator).
    int objects = 0;
    for (const LayoutComponent& c : s.components)
        objects += c.mdt ? 0 : c.stripe_count;
    uint64_t next = static_cast<uint64_t>(instance) * static_cast<uint64_t>(objects);
    for (size_t i = 0; i < s.components.size(); i++) {
        const LayoutComponent& c = s.components[i];
        const Pool& pool = p.fs.pools[c.pool];
        StripeExtent e{c.end, c.stripe_count, c.stripe_size, 0, pool.first, pool.targets, -1};
        if (c.mdt) {
            e.mdt = p.fs.osts + instance % std::max(1, p.fs.mdts);
        } else {
            bool first_ost = i == 0 || (i == 1 && s.components[0].mdt);
            e.start = s.stripe_offset >= 0 && first_ost ? s.stripe_offset % pool.targets
                                                        : static_cast<int>(next % static_cast<uint64_t>(pool.targets));
            next += static_cast<uint64_t>(c.stripe_count);
        }
        st.extents.push_back(e);
    }
    return st;
}

namespace {

// An object: a target and the layout component whose stripe object it holds.
uint64_t object_of(uint64_t component, int target)
{
    return component << 24 | static_cast<uint64_t>(target);
}

}  // namespace

WritePhaseBuilder::WritePhaseBuilder(const Platform& p, Breakdown& bd)
    : platform_(p), folios_(storage_targets(p), 0.0), locks_(!p.fs.gpfs && p.fs.expanded_grants),
      token_server_(p.fs.gpfs ? p.fs.token_ops_per_s : 0),
      range_locks_(p.fs.gpfs || p.cache.locked_write_s <= 0 ? 0 : p.cache.page_bytes),
      revocation_s_((token_server_.serves() ? token_server_.request_s() : p.fs.lock_conflict_s) +
                    partial_stripe_write_s(p.fs)),
      client_rpcs_(p.fs.rpc_max_bytes),
      media_requests_(p.fs.rpc_max_bytes), breakdown_(bd), slots_(storage_targets(p))
{
}

void WritePhaseBuilder::bind(const Striping& st, LockHolders& holders, uint64_t file)
{
    striping_ = &st;
    file_ = file;
    locks_.bind(holders);
}

// GPFS's block, or the Lustre stripe of the component that holds the offset.
uint64_t WritePhaseBuilder::lock_unit(uint64_t offset) const
{
    return platform_.fs.lock_block_bytes ? platform_.fs.lock_block_bytes : striping_->at(offset).size;
}

Flow& WritePhaseBuilder::flow(int client, int key, int target)
{
    if (key != current_key_) {
        for (int t : slotted_)
            slots_[t].flow = -1;
        slotted_.clear();
        current_key_ = key;
    }
    int& slot = slots_[target].flow;
    if (slot < 0) {
        slot = static_cast<int>(flows_.size());
        slotted_.push_back(target);
        Flow f;
        f.src = client;
        f.dst = target;
        f.to_target = true;
        flows_.push_back(f);
        flow_key_.push_back(key);
    }
    return flows_[slot];
}

WritePhaseBuilder::TargetSlot& WritePhaseBuilder::slot(int client, int key, int target, int component)
{
    TargetSlot& at = slots_[target];
    uint64_t object = object_of(static_cast<uint64_t>(component), target);
    if (at.media_component != component) {
        if (at.media_component < 0)
            written_.push_back(target);
        at.media_component = component;
        at.media_run = media_requests_.stream(object);
    }
    if (at.rpc_client != client || at.rpc_component != component) {
        at.rpc_client = client;
        at.rpc_component = component;
        at.rpc_run = client_rpcs_.stream(static_cast<uint64_t>(static_cast<uint32_t>(client)) << 32 | object);
    }
    flow(client, key, target);
    return at;
}

void WritePhaseBuilder::add_to_target(int client, int key, int target, int component, uint64_t object_offset,
                                      uint64_t bytes)
{
    TargetSlot& at = slot(client, key, target, component);
    Flow& f = flows_[static_cast<size_t>(at.flow)];
    f.bytes += bytes;
    breakdown_.bytes_per_target[target] += bytes;
    if (platform_.cache.holds_dirty_pages) {  // its requests are its write-back's: finish()
        note_extent(client, target, component, object_offset, bytes);
        folios_[static_cast<size_t>(target)] += static_cast<double>(bytes) / static_cast<double>(write_folio_bytes_);
        return;
    }
    uint64_t requests = media_requests_.add(at.media_run, object_offset, bytes);
    f.target_busy_s += static_cast<double>(requests) * platform_.fs.rpc_overhead_s;
    breakdown_.rpcs += client_rpcs_.add(at.rpc_run, object_offset, bytes);
}

// A page cache's write-back (dirty_pages.hpp): its requests and its folios, each target's shared
// by the phase's flows to it by their bytes.
void WritePhaseBuilder::charge_writeback()
{
    std::vector<uint64_t> requests = DirtyPages::writeback_requests(extents_, platform_.fs.rpc_max_bytes, slots_.size());
    std::vector<uint64_t> target_bytes(slots_.size(), 0);
    for (const Flow& f : flows_)
        target_bytes[static_cast<size_t>(f.dst)] += f.bytes;
    for (Flow& f : flows_) {
        size_t t = static_cast<size_t>(f.dst);
        double busy_s = static_cast<double>(requests[t]) * platform_.fs.rpc_overhead_s +
                        folios_[t] * platform_.cache.writeback_folio_s;
        if (f.bytes > 0)
            f.target_busy_s += busy_s * static_cast<double>(f.bytes) / static_cast<double>(target_bytes[t]);
    }
    for (uint64_t n : requests)
        breakdown_.rpcs += n;
    std::fill(folios_.begin(), folios_.end(), 0.0);
}

void WritePhaseBuilder::note_extent(int client, int target, int component, uint64_t object_offset, uint64_t bytes)
{
    if (!extents_.empty()) {
        ObjectExtent& last = extents_.back();
        if (last.node == client && last.target == target && last.component == component && last.end == object_offset) {
            last.end += bytes;
            return;
        }
    }
    extents_.push_back({client, target, file_, component, object_offset, object_offset + bytes});
}

// A piece's partial first and last lock units: a revocation is a round trip the writing
// process waits for (extent_locks.hpp), not work of the unit's target.
void WritePhaseBuilder::lock_boundary(int client, int process, uint64_t offset)
{
    const StripeExtent& extent = striping_->at(offset);
    int target = extent.target_of(offset);
    uint64_t component = static_cast<uint64_t>(&extent - striping_->extents.data());
    ExtentLocks::Grant grant = locks_.acquire(client, offset, lock_unit(offset), process_calls_[process] - 1,
                                              object_of(component, target));
    if (grant.revokes && token_server_.serves()) {
        breakdown_.lock_conflicts++;
        token_server_.request();
    } else if (grant.revokes) {
        breakdown_.lock_conflicts++;
        if (static_cast<size_t>(target) >= object_revocations_.size())
            object_revocations_.resize(static_cast<size_t>(target) + 1, 0);
        if (object_revocations_[target]++ == 0)
            revoked_objects_.push_back(target);
        longest_object_chain_ = std::max(longest_object_chain_, object_revocations_[target]);
    }
    if (grant.waits)
        max_process_waits_ = std::max(max_process_waits_, ++process_waits_[process]);
}

namespace {

// What a node or process sent to storage, for the run's ceiling (ceiling.hpp).
void count_sent(std::vector<uint64_t>& sent, int id, uint64_t bytes)
{
    if (static_cast<size_t>(id) >= sent.size())
        sent.resize(static_cast<size_t>(id) + 1, 0);
    sent[id] += bytes;
}

// A place in a striped extent, walked stripe by stripe: which stripe of the cycle it is in,
// which cycle, and how far into the stripe. Kept by addition, not by divisions per stripe (a
// config with 1 MiB stripes walks half a million of them).
struct StripeCursor {
    const StripeExtent& extent;
    uint64_t cycle, slot, within;
    StripeCursor(const StripeExtent& e, uint64_t offset)
        : extent(e), cycle(offset / e.size / static_cast<uint64_t>(e.count)),
          slot(offset / e.size % static_cast<uint64_t>(e.count)), within(offset % e.size)
    {
    }
    // The target of the stripe `ahead` places on (fewer than the stripe count).
    int target(uint64_t ahead = 0) const
    {
        uint64_t count = static_cast<uint64_t>(extent.count), s = slot + ahead;
        return extent.target_of_slot(s < count ? s : s - count);
    }
    // Where the stripe `ahead` places on begins in its target's object, plus `within`.
    uint64_t object_offset(uint64_t ahead = 0) const
    {
        uint64_t wraps = slot + ahead >= static_cast<uint64_t>(extent.count) ? 1 : 0;
        return (cycle + wraps) * extent.size + within;
    }
    void advance(uint64_t bytes)
    {
        within += bytes;
        if (within < extent.size)
            return;
        within = 0;
        if (++slot == static_cast<uint64_t>(extent.count)) {
            slot = 0;
            cycle++;
        }
    }
};

}  // namespace

// A write call of `process` on `client` and its bytes (every piece add() takes is one call).
void WritePhaseBuilder::count_process_write(int client, int process, uint64_t bytes)
{
    if (static_cast<size_t>(process) >= process_bytes_.size()) {
        process_bytes_.resize(static_cast<size_t>(process) + 1, 0);
        process_calls_.resize(static_cast<size_t>(process) + 1, 0);
        process_waits_.resize(static_cast<size_t>(process) + 1, 0);
    }
    uint64_t& sum = process_bytes_[process];
    if (sum == 0)
        processes_.push_back(process);
    if (platform_.cache.contended_write_Bps > 0)  // only a contended client counts them
        count_node_write(client, sum == 0, bytes);
    sum += bytes;
    max_process_bytes_ = std::max(max_process_bytes_, sum);
    max_process_calls_ = std::max(max_process_calls_, ++process_calls_[process]);
}

// `bytes` of a write on `client`, by a process writing for the first time this phase or not.
void WritePhaseBuilder::count_node_write(int client, bool new_writer, uint64_t bytes)
{
    if (static_cast<size_t>(client) >= node_writers_.size()) {
        node_writers_.resize(static_cast<size_t>(client) + 1, 0);
        node_bytes_.resize(static_cast<size_t>(client) + 1, 0);
    }
    if (node_bytes_[client] == 0)
        writing_nodes_.push_back(client);
    node_writers_[client] += new_writer ? 1 : 0;
    node_bytes_[client] += bytes;
}

// The longest a node's writers of the file take to copy their bytes in one call at a time
// (contended_writes.hpp); 0 where the client lets them in side by side (nothing counted).
double WritePhaseBuilder::contended_write_s() const
{
    double longest = 0;
    for (int client : writing_nodes_) {
        double Bps = contended_write_Bps(platform_.cache, node_writers_[client]);
        if (Bps > 0)
            longest = std::max(longest, static_cast<double>(node_bytes_[client]) / Bps);
    }
    return longest;
}

// The bytes [offset, end) of one extent of the layout: a Data-on-MDT extent to its MDT whole,
// else its partial first stripe, whole cycles over all its stripes (computed, not walked: each
// target's part of them is contiguous in its object), then the rest.
void WritePhaseBuilder::add_extent(int client, int key, int component, const StripeExtent& e, uint64_t offset,
                                   uint64_t end)
{
    if (e.mdt >= 0) {
        add_to_target(client, key, e.mdt, component, offset, end - offset);
        return;
    }
    uint64_t cycle_bytes = e.size * static_cast<uint64_t>(e.count);
    StripeCursor at(e, offset);
    for (uint64_t pos = offset; pos < end;) {
        if (at.within == 0 && end - pos >= cycle_bytes) {
            uint64_t cycles = (end - pos) / cycle_bytes;
            for (uint64_t i = 0; i < static_cast<uint64_t>(e.count); i++)
                add_to_target(client, key, at.target(i), component, at.object_offset(i), cycles * e.size);
            pos += cycles * cycle_bytes;
            at.cycle += cycles;
            continue;
        }
        uint64_t piece = std::min(end - pos, e.size - at.within);
        add_to_target(client, key, at.target(), component, at.object_offset(), piece);
        pos += piece;
        at.advance(piece);
    }
}

void WritePhaseBuilder::add(int client, int key, int process, uint64_t offset, uint64_t length, double extra_busy_s)
{
    if (length == 0)
        return;
    count_process_write(client, process, length);
    if (platform_.cache.holds_dirty_pages)
        write_folio_bytes_ = DirtyPages::folio_bytes(length, platform_.cache.page_bytes, platform_.cache.max_folio_bytes);
    range_locks_.write(client, process, offset, offset + length);
    count_sent(breakdown_.bytes_per_node, client, length);
    count_sent(breakdown_.bytes_per_process, process, length);
    uint64_t end = offset + length;
    for (uint64_t pos = offset; pos < end;) {
        const StripeExtent& e = striping_->at(pos);
        uint64_t stop = std::min(end, e.end);
        add_extent(client, key, static_cast<int>(&e - striping_->extents.data()), e, pos, stop);
        pos = stop;
    }
    if (offset % lock_unit(offset) != 0)
        lock_boundary(client, process, offset);
    if (end % lock_unit(end - 1) != 0)
        lock_boundary(client, process, end - 1);
    if (extra_busy_s > 0)
        flow(client, key, striping_->target_of(offset)).target_busy_s += extra_busy_s;
}

Phase WritePhaseBuilder::finish(const std::string& label, double fixed_s)
{
    Phase phase;
    phase.label = label;
    phase.fixed_s = fixed_s;
    phase.max_process_bytes = max_process_bytes_;
    phase.max_process_calls = max_process_calls_;
    phase.contended_write_s = contended_write_s();
    if (platform_.cache.holds_dirty_pages)
        charge_writeback();
    phase.extents = std::move(extents_);
    extents_.clear();
    // The phase's lock waits (extent_locks.hpp): the most revocations one process waits for,
    // or the most one object goes through (its lock server grants them one after another), or
    // on GPFS the file's token server's requests (token_server.hpp).
    uint64_t waits = std::max(longest_object_chain_, max_process_waits_);
    for (int t : revoked_objects_)
        object_revocations_[t] = 0;
    revoked_objects_.clear();
    longest_object_chain_ = 0;
    phase.lock_wait_s = std::max(static_cast<double>(waits) * revocation_s_, token_server_.busy_s());
    token_server_.end_phase();
    phase.range_lock_wait_s = static_cast<double>(range_locks_.longest_chain()) * platform_.cache.locked_write_s;
    range_locks_.end_phase();
    // By (key, target); a key's flows to one target merged in order of creation.
    order_.resize(flows_.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), [this](size_t a, size_t b) {
        return std::tie(flow_key_[a], flows_[a].dst, a) < std::tie(flow_key_[b], flows_[b].dst, b);
    });
    phase.flows.reserve(flows_.size());
    for (size_t k = 0; k < order_.size(); k++) {
        const Flow& f = flows_[order_[k]];
        bool same = k > 0 && flow_key_[order_[k]] == flow_key_[order_[k - 1]] && f.dst == phase.flows.back().dst;
        if (!same) {
            phase.flows.push_back(f);
            continue;
        }
        phase.flows.back().bytes += f.bytes;
        phase.flows.back().target_busy_s += f.target_busy_s;
    }
    flows_.clear();
    flow_key_.clear();
    for (int t : slotted_)
        slots_[t].flow = -1;
    slotted_.clear();
    for (int t : written_)
        slots_[t] = TargetSlot{};
    written_.clear();
    current_key_ = -1;
    locks_.end_phase();
    client_rpcs_.clear();
    media_requests_.clear();
    for (int process : processes_)
        process_bytes_[process] = process_calls_[process] = process_waits_[process] = 0;
    processes_.clear();
    for (int client : writing_nodes_)
        node_writers_[client] = node_bytes_[client] = 0;
    writing_nodes_.clear();
    max_process_bytes_ = 0;
    max_process_calls_ = 0;
    max_process_waits_ = 0;
    return phase;
}

}  // namespace iosim
