// A word of a workload, platform or config file as the enum value it names.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

namespace iosim {

// The value of `word` in `words`; an error naming the key, the words allowed and the one given.
template <typename E>
E parse_word(const std::string& word, std::initializer_list<std::pair<const char*, E>> words,
             const std::string& key)
{
    std::string allowed;
    for (const auto& [name, value] : words) {
        if (word == name)
            return value;
        allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    }
    throw std::invalid_argument(key + ": expected one of " + allowed + ", got '" + word + "'");
}

}  // namespace iosim
