// A map from 64-bit keys (or keys with a flat_hash of their own) to values for the bookkeeping the simulator does per piece and per
// flow (RPC runs per object, a client's write-back window per OSC): open addressing over a
// flat array, entries kept in insertion order, cleared by the slots it used. std::unordered_map
// allocates a node per entry and frees it at clear(), which at IO500's scale (millions of
// phases, each with hundreds of entries) was most of the simulation's time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace iosim {

// The hash of a key of a FlatMap: its top bits pick the home slot.
inline uint64_t flat_hash(uint64_t key) { return key * 0x9e3779b97f4a7c15ULL; }

template <typename Value, typename Key = uint64_t>
class FlatMap {
public:
    bool empty() const { return keys_.empty(); }
    size_t size() const { return keys_.size(); }
    // In the order the keys were first inserted.
    const std::vector<Key>& keys() const { return keys_; }
    const std::vector<Value>& values() const { return values_; }
    std::vector<Value>& values() { return values_; }  // to change values, not which keys

    const Value* find(const Key& key) const
    {
        int32_t i = index_of(key);
        return i < 0 ? nullptr : &values_[static_cast<size_t>(i)];
    }
    Value* find(const Key& key)
    {
        int32_t i = index_of(key);
        return i < 0 ? nullptr : &values_[static_cast<size_t>(i)];
    }
    // The key's value, or `value` inserted as it (and true).
    std::pair<Value*, bool> try_emplace(const Key& key, const Value& value = Value{})
    {
        if (2 * (keys_.size() + 1) > slots_.size())
            grow();
        size_t s = home(key);
        for (; slots_[s].index >= 0; s = (s + 1) & mask_)
            if (slots_[s].key == key)
                return {&values_[static_cast<size_t>(slots_[s].index)], false};
        slots_[s] = {key, static_cast<int32_t>(keys_.size())};
        used_.push_back(s);
        keys_.push_back(key);
        values_.push_back(value);
        return {&values_.back(), true};
    }
    Value& operator[](const Key& key) { return *try_emplace(key).first; }
    void clear()
    {
        for (size_t s : used_)
            slots_[s].index = -1;
        used_.clear();
        keys_.clear();
        values_.clear();
    }

private:
    size_t home(const Key& key) const { return static_cast<size_t>(flat_hash(key) >> shift_); }
    // The key's index into keys_ and values_; -1: not there.
    int32_t index_of(const Key& key) const
    {
        if (keys_.empty())
            return -1;
        for (size_t s = home(key);; s = (s + 1) & mask_)
            if (slots_[s].index < 0 || slots_[s].key == key)
                return slots_[s].index;
    }
    void grow()
    {
        size_t n = slots_.empty() ? 16 : 2 * slots_.size();
        slots_.assign(n, Slot{});
        mask_ = n - 1;
        shift_ = 64;
        for (size_t m = n; m > 1; m >>= 1)
            shift_--;
        used_.clear();
        for (size_t i = 0; i < keys_.size(); i++) {
            size_t s = home(keys_[i]);
            while (slots_[s].index >= 0)
                s = (s + 1) & mask_;
            slots_[s] = {keys_[i], static_cast<int32_t>(i)};
            used_.push_back(s);
        }
    }

    // A slot holds its key as well as the entry's index: a probe reads one array, not two.
    struct Slot {
        Key key{};
        int32_t index = -1;  // -1 free, else an index into keys_ and values_
    };
    std::vector<Key> keys_;
    std::vector<Value> values_;
    std::vector<Slot> slots_;
    std::vector<size_t> used_;    // slots set
    size_t mask_ = 0;
    int shift_ = 64;  // 64 - log2 of the slots: home() takes the hash's top bits
};

}  // namespace iosim
