// The layouts of one workload's files, each computed once per combination of the settings
// that decide it (alignment, metadata block size, chunk dims): configs of a batch share them
// (a worker lays them out before it simulates each config: Scenario::lay_out).
#pragma once

#include <map>
#include <string>

#include "model/file_layout.hpp"
#include "model/model.hpp"
#include "model/workload.hpp"

namespace iosim {

class LayoutCache {
public:
    const FileLayout& get(size_t file_index, const FileSession& file, const FileSettings& settings);
    // Forgets every layout if together they hold more than `bytes`; a layout get() returned
    // before is then gone.
    void forget_beyond(size_t bytes);

private:
    std::map<std::string, FileLayout> layouts_;
    size_t bytes_ = 0;  // what the layouts hold, about
};

}  // namespace iosim
