#include "input/doc_json.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <new>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" {
#include "input_error.h"
}

namespace iosim {

using nlohmann::json;

namespace {

doc_node* checked(doc_node* n)
{
    if (!n)
        throw std::bad_alloc();
    return n;
}

const char* copied(doc& d, const std::string& text)
{
    const char* copy = doc_copy_text(&d, text.data(), text.size());
    if (!copy)
        throw std::bad_alloc();
    return copy;
}

// Counts nodes and nesting as the YAML reader does (doc.h's bounds): why a node at `depth`
// is refused, empty if it is not.
class Bounds {
public:
    std::string refusal(size_t depth)
    {
        if (depth > DOC_MAX_DEPTH)
            return "nested deeper than " + std::to_string(DOC_MAX_DEPTH) + " lists and mappings";
        if (++nodes_ > DOC_MAX_NODES)
            return "more than " + std::to_string(DOC_MAX_NODES) + " nodes (aliases counted expanded)";
        return "";
    }

    void node(size_t depth)
    {
        std::string why = refusal(depth);
        if (!why.empty())
            throw std::invalid_argument(why);
    }

private:
    size_t nodes_ = 0;
};

doc_node* integer(doc& d, const std::string& text, bool exact, int64_t value)
{
    doc_node* n = checked(doc_new(&d, DOC_INT));
    n->text = copied(d, text);
    n->len = text.size();
    n->exact = exact;
    n->i = exact ? value : 0;
    return n;
}

doc_node* unsigned_integer(doc& d, uint64_t value)
{
    return integer(d, std::to_string(value), value <= INT64_MAX, static_cast<int64_t>(value));
}

doc_node* boolean(doc& d, bool value)
{
    doc_node* n = checked(doc_new(&d, DOC_BOOL));
    n->i = value;
    return n;
}

doc_node* string(doc& d, const std::string& value)
{
    return checked(doc_scalar(&d, value.data(), value.size(), 0, 0));
}

// A number nlohmann could not hold as an integer: one beyond 64 bits if written as one.
doc_node* number(doc& d, double value, const std::string& text)
{
    if (text.find_first_of(".eE") == std::string::npos)
        return integer(d, text, false, 0);
    return checked(doc_float_node(&d, value));
}

// A list or map of `items`, a map's keys on `key_lines` of the text (empty: not from a text).
doc_node* collection(doc& d, doc_kind kind, const std::vector<doc_node*>& items,
                     const std::vector<std::string>& keys, const std::vector<size_t>& key_lines = {})
{
    doc_node* n = checked(doc_new(&d, kind));
    if (doc_make_entries(&d, n, items.size()))
        throw std::bad_alloc();
    for (size_t i = 0; i < items.size(); i++) {
        n->items[i] = items[i];
        if (kind == DOC_MAP) {
            n->keys[i] = copied(d, keys[i]);
            n->key_lines[i] = key_lines.empty() ? 0 : key_lines[i];
        }
    }
    doc_measure(n);
    return n;
}

doc_node* convert(const json& value, doc& d, Bounds& bounds, size_t depth)
{
    bool nested = value.is_array() || value.is_object();
    bounds.node(depth + nested);
    std::vector<doc_node*> items;
    std::vector<std::string> keys;
    switch (value.type()) {
    case json::value_t::null: return checked(doc_new(&d, DOC_NULL));
    case json::value_t::boolean: return boolean(d, value.get<bool>());
    case json::value_t::number_integer: {
        auto i = value.get<int64_t>();
        return integer(d, std::to_string(i), true, i);
    }
    case json::value_t::number_unsigned: return unsigned_integer(d, value.get<uint64_t>());
    case json::value_t::number_float: return checked(doc_float_node(&d, value.get<double>()));
    case json::value_t::string: return string(d, value.get_ref<const std::string&>());
    case json::value_t::array:
        for (const json& item : value)
            items.push_back(convert(item, d, bounds, depth + 1));
        return collection(d, DOC_LIST, items, keys);
    case json::value_t::object:
        for (const auto& [key, item] : value.items()) {
            keys.push_back(key);
            items.push_back(convert(item, d, bounds, depth + 1));
        }
        return collection(d, DOC_MAP, items, keys);
    default: throw std::invalid_argument("not a JSON value");
    }
}

// A message quoting the input as printable ASCII: other bytes as \xNN (the input may be
// anything, the message is one line of text).
std::string printable(const std::string& text)
{
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c < 0x7F) {
            out += static_cast<char>(c);
        } else {
            char escaped[8];
            snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        }
    }
    return out;
}

std::string shown_key(const std::string& key)
{
    char out[512];
    return doc_key_text(key.c_str(), out, sizeof out);
}

// How far nlohmann's parser has read a text, and so the line of what it hands over: that of
// the last character read, which is a token's own (the one after a number, read to see the
// number end, is on the number's line or is the newline ending it).
class Reading {
public:
    explicit Reading(const std::string& text) : counted_(text.data()), reached_(text.data()) {}

    void reached(const char* p) { reached_ = p; }

    size_t line()
    {
        for (; counted_ + 1 < reached_; counted_++)
            lines_ += *counted_ == '\n';
        return lines_;
    }

    // The text's characters, telling the reading how far they are read.
    class Iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;

        Iterator(const char* p, Reading& reading) : p_(p), reading_(&reading) {}
        reference operator*() const { return *p_; }
        Iterator& operator++()
        {
            reading_->reached(++p_);
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator before = *this;
            ++*this;
            return before;
        }
        bool operator==(const Iterator& other) const { return p_ == other.p_; }
        bool operator!=(const Iterator& other) const { return p_ != other.p_; }

    private:
        const char* p_;
        Reading* reading_;
    };

private:
    const char* counted_;  // lines are counted up to here
    const char* reached_;  // one past the last character read
    size_t lines_ = 1;
};

// The tree built as nlohmann's parser reads the text, keys in their order, each node and key
// with its line.
class Builder : public nlohmann::json_sax<json> {
public:
    Builder(doc& d, Reading& reading) : d_(d), reading_(reading) {}

    doc_node* root() const { return root_; }
    // Why the text is refused (empty: not refused), at which line and field (empty: the
    // document as a whole).
    const std::string& error() const { return error_; }
    const std::string& error_field() const { return error_field_; }
    size_t error_line() const { return error_line_; }

    bool null() override { return add(checked(doc_new(&d_, DOC_NULL))); }
    bool boolean(bool value) override { return add(iosim::boolean(d_, value)); }
    bool number_integer(number_integer_t value) override
    {
        return add(integer(d_, std::to_string(value), true, value));
    }
    bool number_unsigned(number_unsigned_t value) override
    {
        return add(unsigned_integer(d_, value));
    }
    bool number_float(number_float_t value, const string_t& text) override
    {
        return add(number(d_, value, text));
    }
    bool string(string_t& value) override { return add(iosim::string(d_, value)); }
    bool binary(binary_t&) override { return fail("not a JSON value"); }
    bool start_object(std::size_t) override { return open(DOC_MAP); }
    bool start_array(std::size_t) override { return open(DOC_LIST); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& key) override
    {
        Frame& f = frames_.back();
        if (!f.seen.insert(key).second) {
            std::string map = path(false);
            return fail_at((map.empty() ? "" : map + ".") + shown_key(key), "duplicate key");
        }
        f.keys.push_back(key);
        f.key_lines.push_back(reading_.line());
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override
    {
        std::string what = e.what();
        return fail_at(path(), "malformed JSON: " + printable(what.substr(what.find(']') + 2)));
    }

private:
    struct Frame {
        doc_kind kind;
        size_t line;
        std::vector<doc_node*> items;
        std::vector<std::string> keys;
        std::vector<size_t> key_lines;
        std::unordered_set<std::string> seen;
    };

    // The key path of the value being read, as error messages name keys; `last_key`: with
    // the innermost map's last key (false: the map's own path, where its next key goes).
    std::string path(bool last_key = true) const
    {
        std::string out;
        for (size_t k = 0; k < frames_.size(); k++) {
            const Frame& f = frames_[k];
            if (f.kind == DOC_LIST)
                out += "[" + std::to_string(f.items.size()) + "]";
            else if (!f.keys.empty() && (last_key || k + 1 < frames_.size()))
                out += (out.empty() ? "" : ".") + shown_key(f.keys.back());
        }
        return out;
    }

    bool fail(const std::string& why)
    {
        error_ = why;
        return false;
    }

    // The node at `field` (empty: the document) refused on the line being read.
    bool fail_at(const std::string& field, const std::string& why)
    {
        error_field_ = field;
        error_line_ = reading_.line();
        return fail(why);
    }

    // Whether a node at `depth` is within the bounds (else refused, naming its field; nesting
    // by the key whose value nests, as the YAML readers name it: formats/doc_yaml.c).
    bool bounded(size_t depth)
    {
        std::string why = bounds_.refusal(depth);
        if (why.empty())
            return true;
        std::string field = path();
        while (depth > DOC_MAX_DEPTH && !field.empty() && field.back() == ']')
            field.erase(field.rfind('['));
        return fail_at(field, why);
    }

    bool open(doc_kind kind)
    {
        if (!bounded(frames_.size() + 1))
            return false;
        frames_.push_back({kind, reading_.line(), {}, {}, {}, {}});
        return true;
    }

    bool close()
    {
        Frame f = std::move(frames_.back());
        frames_.pop_back();
        doc_node* n = collection(d_, f.kind, f.items, f.keys, f.key_lines);
        n->line = f.line;
        return attach(n);
    }

    bool add(doc_node* n)
    {
        if (!bounded(frames_.size()))
            return false;
        n->line = reading_.line();
        return attach(n);
    }

    bool attach(doc_node* n)
    {
        if (frames_.empty())
            root_ = n;
        else
            frames_.back().items.push_back(n);
        return true;
    }

    doc& d_;
    Reading& reading_;
    Bounds bounds_;
    std::vector<Frame> frames_;
    doc_node* root_ = nullptr;
    std::string error_;
    std::string error_field_;
    size_t error_line_ = 0;
};

}  // namespace

doc_node* doc_from_json(const json& value, doc& d)
{
    Bounds bounds;
    return convert(value, d, bounds, 0);
}

namespace {

// The first \u escape of a UTF-16 surrogate in the strings of `text` (0: none). YAML, which
// every other reader of the formats reads, has no surrogate pairs: a character beyond U+FFFF
// must be written as itself.
unsigned escaped_surrogate(const std::string& text)
{
    bool in_string = false;
    for (size_t i = 0; i < text.size(); i++) {
        if (text[i] == '"') {
            in_string = !in_string;
        } else if (in_string && text[i] == '\\' && i + 1 < text.size()) {
            if (text[i + 1] == 'u' && i + 5 < text.size()) {
                unsigned code = 0;
                for (size_t k = i + 2; k < i + 6 && std::isxdigit(static_cast<unsigned char>(text[k])); k++)
                    code = code * 16 + static_cast<unsigned>(std::stoi(std::string(1, text[k]), nullptr, 16));
                if (code >= 0xD800 && code <= 0xDFFF)
                    return code;
            }
            i++;
        }
    }
    return 0;
}

// An error naming the file (formats/input_error.h).
[[noreturn]] void refuse(const char* file, size_t line, const std::string& field, const std::string& why)
{
    char message[2048];
    input_error_text(message, sizeof message, file, line, field.c_str(), why.c_str());
    throw InputRefused(message);
}

}  // namespace

doc_node* doc_from_json_text(const std::string& text, doc& d, const char* file)
{
    unsigned long odd = 0;
    if (size_t line = doc_unwritten_character(text.data(), text.size(), &odd)) {
        char why[64];
        snprintf(why, sizeof why, "U+%04lX written as itself (escape it)", odd);
        refuse(file, line, "", why);
    }
    if (unsigned code = escaped_surrogate(text)) {
        char hex[8];
        snprintf(hex, sizeof hex, "%04X", code);
        refuse(file, 0, "", std::string("\\u escape of the surrogate U+") + hex +
                                " (YAML has no surrogate pairs: write the character itself)");
    }
    Reading reading(text);
    Builder builder(d, reading);
    const char* end = text.data() + text.size();
    if (!json::sax_parse(Reading::Iterator(text.data(), reading), Reading::Iterator(end, reading),
                         &builder) ||
        !builder.root())
        refuse(file, builder.error_line(), builder.error_field(),
               builder.error().empty() ? "not JSON" : builder.error());
    return builder.root();
}

}  // namespace iosim
