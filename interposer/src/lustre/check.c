/* An entry point for the tests (tests/interposer/test_interposer_lustre_layout.py): a file
 * created with the layout a config gives it, as the interposer creates one on Lustre. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "core/text.h"
#include "lustre/layout.h"
#include "lustre/lustre.h"

#define EXPORT __attribute__((visibility("default")))

/* Creates `path` with the layout `config_path` gives it, through liblustreapi, and reads it
 * back: {"created": true, "layout": {...}} or {"created": false, "reason": "..."} into out.
 * The layout is built as the interposer builds it when a file is created on Lustre. */
EXPORT int iotwin_create_with_layout(const char *config_path, const char *path, char *out,
                                     size_t len)
{
    struct iot_config *config = NULL;
    struct iot_settings settings;
    struct iot_layout layout;
    char matched[512], reason[160];
    if (iot_config_load(config_path, &config, out, len) != 0)
        return -1;
    iot_resolve(config, path, NULL, &settings, matched, sizeof matched);
    int rc = iot_lustre_layout_of(&settings, &layout);
    if (rc == 0)
        rc = iot_layout_create(path, &layout);
    if (rc == 0)
        rc = iot_layout_read(path, &layout);
    struct buf text = {NULL, 0, 0, 0};
    if (rc == 0) {
        PUT(&text, "{\"created\": true, \"layout\": ");
        iot_layout_json(&text, &layout);
        char key[64];
        for (int i = iot_lustre_unmade(&settings, 0, key, sizeof key), n = 0; i >= 0;
             i = iot_lustre_unmade(&settings, i + 1, key, sizeof key), n++) {
            put(&text, n ? ", " : ", \"not_effective\": {");
            put_string(&text, key);
            PUT(&text, ": ");
            put_string(&text, IOT_LUSTRE_UNMADE_REASON);
        }
        if (iot_lustre_unmade(&settings, 0, key, sizeof key) >= 0)
            PUT(&text, "}");
    } else {
        iot_lustre_reason(rc, reason, sizeof reason);
        PUT(&text, "{\"created\": false, \"reason\": ");
        put_string(&text, reason);
    }
    PUT(&text, "}");
    buf_copy_out(&text, out, len);
    iot_settings_clear(&settings);
    iot_config_free(config);
    return rc ? 1 : 0;
}
