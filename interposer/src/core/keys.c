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
