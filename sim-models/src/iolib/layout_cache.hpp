// The layouts of one workload's files, each computed once per combination of the settings
// that decide it (alignment, metadata block size, chunk dims): configs of a batch share them.
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

private:
    std::map<std::string, FileLayout> layouts_;
};

}  // namespace iosim
