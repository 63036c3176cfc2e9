#define _GNU_SOURCE
#include "posix/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/filesystem.h"
#include "core/keys.h"
#include "core/layer.h"
#include "core/text.h"
#include "lustre/lustre.h"

static int asks_layout(const struct iot_settings *settings)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        if (settings->v[id].set && iot_key_in_blocks(id, IOT_B_LUSTRE))
            return 1;
    return 0;
}

int iot_posix_layout_at_create(struct iot_file *file, const char *path, int exists)
{
    if (!asks_layout(&file->settings))
        return 0;
    /* every process creates its own file (a POSIX open is no collective): an existing file,
     * made by another process of a shared file a moment before, keeps the layout it has */
    return iot_lustre_before_open(file, path, exists ? IOT_OPENING : IOT_CREATE_IF_ABSENT);
}

/* The lustre keys the layout was made from, on Lustre at create: {"lustre": {"stripe_count":
 * "4", ...}}; else nothing was applied: {}. */
static void record_applied(struct iot_file *file, enum iotwin_fs fs)
{
    struct buf out = {NULL, 0, 0, 0};
    char text[256];
    int n = 0;
    if (fs != IOTWIN_FS_LUSTRE || strcmp(file->how, "create") != 0
        || !asks_layout(&file->settings)) {
        file->applied = strdup("{}");
        return;
    }
    PUT(&out, "{\"lustre\": {");
    for (int id = 0; id < IOT_NKEYS; id++) {
        const struct iot_value *value = &file->settings.v[id];
        if (!value->set || !iot_key_in_blocks(id, IOT_B_LUSTRE))
            continue;
        put(&out, n++ ? ", " : "");
        put_string(&out, IOT_KEYS[id].name);
        PUT(&out, ": ");
        put_string(&out, iot_requested_text(id, value, text, sizeof text));
    }
    PUT(&out, "}}");
    file->applied = buf_take(&out);
}

void iot_posix_layout_readback(struct iot_file *file)
{
    struct buf lustre = {NULL, 0, 0, 0}, out = {NULL, 0, 0, 0};
    enum iotwin_fs fs = iot_filesystem(file->name, file->fs_type, sizeof file->fs_type);
    record_applied(file, fs);
    iot_lustre_readback(file, fs, &lustre);   /* `, "lustre": ...` */
    PUT(&out, "{");
    if (lustre.s && lustre.len > 2)
        put_bytes(&out, lustre.s + 2, lustre.len - 2);
    PUT(&out, "}");
    free(lustre.s);
    file->effective = buf_take(&out);
    iot_not_applying(file);
}
