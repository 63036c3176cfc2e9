// The workload (sim-models/WORKLOAD.md) as the simulator reads it: files, datasets, and who
// writes which block of each dataset, taken from the normal form every reader of the format
// checks alike (formats/workload_check.h), so iosim accepts what the Python validator and the
// replay proxy accept.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model/workload.hpp"

extern "C" {
#include "doc.h"
}

namespace iosim {

FillTime parse_fill_time(const std::string& value, const std::string& where);
FillValue parse_fill_value(const std::string& value, const std::string& where);

// A workload document checked as every reader of the format checks it (formats/
// workload_check.h): its normal form, built in `out`; InputRefused (input/doc_json.hpp) if it
// is not a valid workload, "FILE:LINE: PATH: why" when it was read from the file `file`, else
// "PATH: why".
const doc_node* check_workload(const doc_node* document, doc& out, const char* file = nullptr);
// The simulator's view of a checked workload's normal form.
Workload read_workload(const doc_node* normal);
// Both, on iosim's input.
Workload parse_workload(const nlohmann::json& data);

}  // namespace iosim
