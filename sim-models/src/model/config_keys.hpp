// The tuning config's keys as iosim reads them: each block's settings checked against the table
// generated from config-schema.yaml (sim-models/gen_config_keys.py), so a key the schema lacks
// or a value out of its bounds is an error, and a key iosim does not model is skipped by name,
// never silently.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "config_keys_table.hpp"

namespace iosim::config {

// The key `name` of `block` if the schema has it and `value` is one it allows; else
// std::invalid_argument naming "<block>.<name>".
const Key& checked_key(const std::string& block, const std::string& name,
                       const nlohmann::json& value);

// Checks each setting of `settings` (a block's mapping) and hands each key iosim reads to
// `apply` as its enumerator of `K` (the block's enum in config_keys_table.hpp).
template <typename K, typename Apply>
void apply_block(const nlohmann::json& settings, const std::string& block, Apply apply)
{
    if (!settings.is_object())
        throw std::invalid_argument(block + ": expected a mapping of " + block + " settings");
    for (const auto& [name, value] : settings.items()) {
        const Key& key = checked_key(block, name, value);
        if (key.id >= 0)
            apply(static_cast<K>(key.id), value);
    }
}

// The same, for a block iosim does not apply in this run (openmpi under MPICH).
void check_block(const nlohmann::json& settings, const std::string& block);

}  // namespace iosim::config
