#include "first_touch.hpp"

#include <algorithm>

namespace iosim {

double first_touch_s(const Network& n, uint64_t from, uint64_t to)
{
    if (n.first_touch_Bps <= 0)
        return 0;
    uint64_t cold_from = std::max(from, n.first_touch_warm_bytes);
    return to > cold_from ? static_cast<double>(to - cold_from) / n.first_touch_Bps : 0;
}

}  // namespace iosim
