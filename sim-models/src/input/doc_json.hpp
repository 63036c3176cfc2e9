// Documents from JSON for the readers of formats/ (workload_check.h): iosim's parsed input, or
// a JSON file read as the Python and replay readers read theirs (keys in order, duplicate keys
// refused, numbers too large kept as written, nesting and nodes bounded as doc.h says).
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

extern "C" {
#include "doc.h"
}

namespace iosim {

// A document's arena (doc.h), freed with it.
struct Document {
    doc d;
    Document() { doc_init(&d); }
    ~Document() { doc_free(&d); }
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;
};

// The document of a parsed value, built in `d`; std::invalid_argument past the bounds.
doc_node* doc_from_json(const nlohmann::json& value, doc& d);
// An input refused: the message is its whole line, naming the file (formats/input_error.h).
struct InputRefused : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// The document of the JSON text of the file `file`; InputRefused if it is not one ("FILE:
// line N: why", or for a field "FILE:LINE: FIELD: why"), std::invalid_argument beyond the
// bounds.
doc_node* doc_from_json_text(const std::string& text, doc& d, const char* file);

}  // namespace iosim
