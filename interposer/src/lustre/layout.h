/* A Lustre file layout, plain or progressive (PFL: components by file extent, each on its
 * own stripes and OST pool, or on the metadata target: Data-on-MDT), made through
 * liblustreapi's llapi_layout_* calls (lustre/include/lustre/lustreapi.h) and read back the
 * same way. liblustreapi is loaded at run time with dlopen, so the interposer has no
 * build-time dependency on Lustre; where it is absent every call answers -ENOSYS. */
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IOT_LAYOUT_MAX_COMPONENTS 16
#define IOT_POOL_LEN 16           /* LOV_MAXPOOLNAME + 1 */
#define IOT_LAYOUT_EOF UINT64_MAX /* LUSTRE_EOF: a component to the end of the file */
#define IOT_LAYOUT_UNSET -2       /* a count, size or offset left to Lustre's default */

struct iot_layout_component {
    uint64_t end;                 /* exclusive; IOT_LAYOUT_EOF for the last */
    long long stripe_count;       /* -1: every OST (LLAPI_LAYOUT_WIDE); IOT_LAYOUT_UNSET */
    long long stripe_size;        /* bytes; IOT_LAYOUT_UNSET */
    char pool[IOT_POOL_LEN];      /* "": no pool named */
    int mdt;                      /* Data-on-MDT: the extent on the file's metadata target */
};

struct iot_layout {
    int ncomponents;              /* 1: a plain layout */
    struct iot_layout_component component[IOT_LAYOUT_MAX_COMPONENTS];
    long long stripe_offset;      /* first OST of the first component; IOT_LAYOUT_UNSET */
};

/* Creates `path` (which must not exist) with `layout`: 0, or -errno (-ENOSYS: no
 * liblustreapi, -ENOTTY: not on Lustre). */
int iot_layout_create(const char *path, const struct iot_layout *layout);

/* The layout of an existing file: 0, or -errno. */
int iot_layout_read(const char *path, struct iot_layout *layout);

/* The layout as a JSON object: {"components": [{"end": ..., "stripe_count": ..., ...}]}. */
struct buf;
void iot_layout_json(struct buf *out, const struct iot_layout *layout);
