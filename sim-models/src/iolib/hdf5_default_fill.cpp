#include "iolib/hdf5_default_fill.hpp"

namespace iosim {

void apply_site_default_fill(DatasetSettings& d, bool fills_default_value)
{
    if (fills_default_value && d.fill_time == FillTime::ifset && d.fill_value == FillValue::fallback)
        d.fill_time = FillTime::alloc;
}

}  // namespace iosim
