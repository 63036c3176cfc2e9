/* The POSIX layer in the core's table of layers (core/layer.h): its data files get a report
 * line each, with `"api": "posix"` (posix/file.h); its hooks are in hooks.c. */
#include "core/layer.h"

static const struct iot_layer posix_layer = {
    .api = "posix",
    .reports_files = 1,
};
IOT_REGISTER_LAYER(posix_layer)
