#include "model/config_keys.hpp"

#include <climits>
#include <stdexcept>

namespace iosim::config {

using nlohmann::json;

namespace {

const Key* find(const std::string& block, const std::string& name)
{
    for (const Key& key : KEYS)
        if (block == key.block && name == key.name)
            return &key;
    return nullptr;
}

bool integer_in(const Key& key, const json& value)
{
    if (!value.is_number_integer())
        return false;
    if (value.is_number_unsigned() && value.get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX))
        return false;
    long long v = value.get<long long>();
    return (!key.has_min || v >= key.min) && (!key.has_max || v <= key.max)
        && (!key.multiple_of || v % key.multiple_of == 0);
}

bool choice_in(const Key& key, const json& value)
{
    if (!value.is_string())
        return false;
    for (const char* const* word = key.values; *word; word++)
        if (value.get_ref<const std::string&>() == *word)
            return true;
    return false;
}

bool fields_valid(const std::string& block, const Key& key, const json& record)
{
    if (!record.is_object())
        return false;
    for (const auto& [field, item] : record.items())
        checked_key(block, std::string(key.name) + "." + field, item);
    return true;
}

bool valid(const std::string& block, const Key& key, const json& value)
{
    switch (key.type) {
    case Type::integer: return integer_in(key, value);
    case Type::size: return integer_in(key, value) || (key.values && choice_in(key, value));
    case Type::boolean: return value.is_boolean();
    case Type::choice: return choice_in(key, value);
    case Type::text: return value.is_string();
    case Type::text_map:
        if (!value.is_object())
            return false;
        for (const auto& item : value)
            if (!item.is_string())
                return false;
        return true;
    case Type::integer_list:
        if (!value.is_array() || value.empty())
            return false;
        for (const auto& item : value)
            if (!integer_in(key, item))
                return false;
        return true;
    case Type::record: return fields_valid(block, key, value);
    case Type::record_list:  // the entries' order and ends: lustre_layout.cpp
        if (!value.is_array() || value.empty())
            return false;
        for (const auto& record : value)
            if (!fields_valid(block, key, record))
                return false;
        return true;
    }
    return false;
}

}  // namespace

const Key& checked_key(const std::string& block, const std::string& name, const json& value)
{
    const Key* key = find(block, name);
    if (!key)
        throw std::invalid_argument(block + "." + name + ": not a key of the config schema "
                                    "(config-schema.yaml)");
    if (!valid(block, *key, value))
        throw std::invalid_argument(block + "." + name + ": expected " + key->expected + ", got " +
                                    value.dump());
    return *key;
}

void check_block(const json& settings, const std::string& block)
{
    apply_block<int>(settings, block, [](int, const json&) {});
}

}  // namespace iosim::config
