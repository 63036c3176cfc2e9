#include "capture/creation.h"

const char *iot_layout_name(H5D_layout_t layout)
{
    switch (layout) {
    case H5D_COMPACT: return "compact";
    case H5D_CONTIGUOUS: return "contiguous";
    case H5D_CHUNKED: return "chunked";
    case H5D_VIRTUAL: return "virtual";
    default: return "unknown";
    }
}

const char *iot_fill_value_name(H5D_fill_value_t status)
{
    return status == H5D_FILL_VALUE_USER_DEFINED ? "user"
           : status == H5D_FILL_VALUE_UNDEFINED  ? "undefined"
                                                 : "default";
}

void put_hsizes(struct buf *b, const hsize_t *v, int n, int unlimited_as_null)
{
    PUT(b, "[");
    for (int i = 0; i < n; i++) {
        put(b, i ? ", " : "");
        if (unlimited_as_null && v[i] == H5S_UNLIMITED)
            PUT(b, "null");
        else
            put_int(b, (long long)v[i]);
    }
    PUT(b, "]");
}
