#include "core/keys.h"

#include <stdio.h>
#include <string.h>

void iot_hint_text(int key_id, const struct iot_value *value, char *out, size_t len)
{
    switch (IOT_KEYS[key_id].type) {
    case IOT_BOOL: snprintf(out, len, "%s", value->i ? "true" : "false"); break;
    case IOT_ENUM: snprintf(out, len, "%s", IOT_KEYS[key_id].values[value->i]); break;
    case IOT_STRING: snprintf(out, len, "%s", value->s); break;
    default: snprintf(out, len, "%lld", value->i); break;
    }
}

int iot_key_in_blocks(int key_id, unsigned blocks)
{
    int block = IOT_KEYS[key_id].block;
    return IOT_KEYS[key_id].parent < 0 && block >= 0 && ((1u << block) & blocks);
}

const char *iot_requested_text(int key_id, const struct iot_value *value, char *out, size_t len)
{
    if (IOT_KEYS[key_id].type == IOT_RECORD_LIST || IOT_KEYS[key_id].type == IOT_RECORD)
        return NULL;
    iot_hint_text(key_id, value, out, len);
    return out;
}

void iot_key_path(int key_id, char *out, size_t len)
{
    snprintf(out, len, "%s.%s", IOT_BLOCK_NAMES[IOT_KEYS[key_id].block], IOT_KEYS[key_id].name);
}

void iot_hint_key_path(const char *hint, char *out, size_t len)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].hint && strcmp(IOT_KEYS[id].hint, hint) == 0) {
            iot_key_path(id, out, len);
            return;
        }
    snprintf(out, len, "mpiio.hints.%s", hint);
}
