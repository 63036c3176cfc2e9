/* The POSIX layer in the layers' table (core/layer.h). */
#pragma once

extern const struct iot_layer iot_posix_layer;
