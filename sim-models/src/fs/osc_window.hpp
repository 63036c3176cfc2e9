// The Lustre client's write-back window: one entry an OSC (a client node's connection to one
// target), in the order first written, found through a table by node and target.
//
// IO500's hard phase holds tens of thousands of OSCs in a window and adds to most of them
// every run of its block, hundreds of runs a window. A hash (FlatMap) spreads those lookups
// over megabytes of slots; a table row per node keeps them a few kilobytes apart (a run's
// writes come node by node), and its cells are 4 bytes, not a 16-byte slot at half load.
// A table beyond `most_cells` cells (nodes x targets: 16 Mi by default, 64 MiB) gives way to
// the hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fs/flat_map.hpp"
#include "model/model.hpp"

namespace iosim {

// An OSC's key: its node in the high 32 bits, its target in the low ones, so that keys sort in
// OSC order (node, then target).
inline uint64_t osc_of(int node, int target)
{
    return static_cast<uint64_t>(static_cast<uint32_t>(node)) << 32 | static_cast<uint32_t>(target);
}

inline uint64_t osc_of(const Flow& f) { return osc_of(f.src, f.dst); }

class OscWindow {
public:
    static constexpr size_t kTableCells = size_t{1} << 24;

    OscWindow(int targets, size_t most_cells)
        : targets_(static_cast<size_t>(targets > 0 ? targets : 1)), most_cells_(most_cells)
    {
    }

    bool empty() const { return flows_.empty(); }
    size_t size() const { return flows_.size(); }
    // In the order their OSCs were first written.
    const std::vector<Flow>& values() const { return flows_; }
    std::vector<Flow>& values() { return flows_; }  // to change bytes and seconds, not OSCs

    const Flow* find(int node, int target) const
    {
        int32_t i = index_of(node, target);
        return i < 0 ? nullptr : &flows_[static_cast<size_t>(i)];
    }
    Flow* find(int node, int target)
    {
        int32_t i = index_of(node, target);
        return i < 0 ? nullptr : &flows_[static_cast<size_t>(i)];
    }
    // The entry of f's OSC (f.src, f.dst), or f inserted as it (and true).
    std::pair<Flow*, bool> try_emplace(const Flow& f)
    {
        int32_t* at = slot(f.src, f.dst);
        if (*at >= 0)
            return {&flows_[static_cast<size_t>(*at)], false};
        *at = static_cast<int32_t>(flows_.size());
        flows_.push_back(f);
        return {&flows_.back(), true};
    }
    void clear()
    {
        if (hashed_mode_)
            hashed_.clear();
        else
            for (const Flow& f : flows_)
                table_[cell(f.src, f.dst)] = -1;
        flows_.clear();
    }

private:
    size_t cell(int node, int target) const
    {
        return static_cast<size_t>(node) * targets_ + static_cast<size_t>(target);
    }
    bool in_table(int node, int target) const
    {
        return node >= 0 && target >= 0 && static_cast<size_t>(node) < rows_ &&
               static_cast<size_t>(target) < targets_;
    }
    int32_t index_of(int node, int target) const
    {
        if (hashed_mode_) {
            const int32_t* i = hashed_.find(osc_of(node, target));
            return i ? *i : -1;
        }
        return in_table(node, target) ? table_[cell(node, target)] : -1;
    }
    // The cell holding the OSC's index (-1: none yet).
    int32_t* slot(int node, int target)
    {
        if (!hashed_mode_ && !in_table(node, target))
            grow_to(node, target);
        if (hashed_mode_)
            return hashed_.try_emplace(osc_of(node, target), -1).first;
        return &table_[cell(node, target)];
    }
    // The table grown to the node's row (doubling its rows), or the indices moved to the hash
    // when the OSC has no cell in any table or the table would pass most_cells_.
    void grow_to(int node, int target)
    {
        if (node < 0 || target < 0 || static_cast<size_t>(target) >= targets_)
            return to_hash();
        size_t rows = std::max(static_cast<size_t>(node) + 1, 2 * rows_);
        if (rows * targets_ > most_cells_)
            return to_hash();
        rows_ = rows;
        table_.resize(rows_ * targets_, -1);
    }
    void to_hash()
    {
        for (size_t i = 0; i < flows_.size(); i++)
            hashed_[osc_of(flows_[i])] = static_cast<int32_t>(i);
        table_ = {};
        rows_ = 0;
        hashed_mode_ = true;
    }

    size_t targets_;
    size_t most_cells_;
    size_t rows_ = 0;
    std::vector<int32_t> table_;  // node-major: cell(node, target) -> index into flows_, or -1
    bool hashed_mode_ = false;
    FlatMap<int32_t> hashed_;  // OSC key -> index into flows_, once the table would be too large
    std::vector<Flow> flows_;
};

}  // namespace iosim
