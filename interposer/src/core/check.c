/* Entry points for the tests (tests/programs/config_check.c): the interposer's own parser and
 * resolution, without hooking anything, so that they can be compared with the Python side's. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "core/config.h"
#include "core/json.h"
#include "core/text.h"

#define EXPORT __attribute__((visibility("default")))

/* Validates a config; "ok" or the error in err. */
EXPORT int iotwin_check_config(const char *path, char *err, size_t errlen)
{
    struct iot_config *config = NULL;
    if (iot_config_load(path, &config, err, errlen) != 0)
        return -1;
    iot_config_free(config);
    snprintf(err, errlen, "ok");
    return 0;
}

static void write_value(struct buf *out, int id, const struct iot_value *v)
{
    const struct iot_key *key = &IOT_KEYS[id];
    switch (key->type) {
    case IOT_BOOL: put(out, v->i ? "true" : "false"); return;
    case IOT_ENUM: put_string(out, key->values[v->i]); return;
    case IOT_STRING: put_string(out, v->s); return;
    case IOT_SIZE:
        if (v->s)   /* a word: `end: eof` */
            put_string(out, v->s);
        else
            put_int(out, v->i);
        return;
    case IOT_INT_LIST: put_list(out, v->list, v->nlist); return;
    case IOT_STRING_MAP:
        PUT(out, "{");
        for (int i = 0; i < v->nmap; i++) {
            put(out, i ? ", " : "");
            put_string(out, v->names[i]);
            PUT(out, ": ");
            put_string(out, v->values[i]);
        }
        PUT(out, "}");
        return;
    default: put_int(out, v->i);
    }
}

static void write_keys(struct buf *out, const struct iot_settings *s, int block, int parent);

/* A record-list's entries, a JSON list of objects. */
static void write_records(struct buf *out, const struct iot_value *v, int block, int id)
{
    PUT(out, "[");
    for (int i = 0; i < v->nrecords; i++) {
        put(out, i ? ", " : "");
        write_keys(out, &v->records[i], block, id);
    }
    PUT(out, "]");
}

/* The keys of `block` under `parent` (-1: the block's own) that are set, as a JSON object. */
static void write_keys(struct buf *out, const struct iot_settings *s, int block, int parent)
{
    int n = 0;
    PUT(out, "{");
    for (int id = 0; id < IOT_NKEYS; id++) {
        if (IOT_KEYS[id].block != block || IOT_KEYS[id].parent != parent || !s->v[id].set)
            continue;
        put(out, iot_json_sep(&n));
        put_string(out, IOT_KEYS[id].name);
        PUT(out, ": ");
        if (IOT_KEYS[id].type == IOT_RECORD)
            write_keys(out, s, block, id);
        else if (IOT_KEYS[id].type == IOT_RECORD_LIST)
            write_records(out, &s->v[id], block, id);
        else
            write_value(out, id, &s->v[id]);
    }
    PUT(out, "}");
}

/* The settings a config gives a file (and a dataset, or NULL) as the interposer resolves them:
 * {"matched": [labels], "settings": {block: {key: value}}}, into out (or the error). */
EXPORT int iotwin_resolve_config(const char *path, const char *file, const char *dataset,
                                 char *out, size_t len)
{
    struct iot_config *config = NULL;
    struct iot_settings settings;
    char matched[512];
    if (iot_config_load(path, &config, out, len) != 0)
        return -1;
    iot_resolve(config, file, dataset, &settings, matched, sizeof matched);
    struct buf text = {NULL, 0, 0, 0};
    PUT(&text, "{\"matched\": \"");
    put(&text, matched);
    PUT(&text, "\", \"settings\": {");
    for (int b = 0; b < IOT_NBLOCKS; b++) {
        put(&text, b ? ", " : "");
        put_string(&text, IOT_BLOCK_NAMES[b]);
        PUT(&text, ": ");
        write_keys(&text, &settings, b, -1);
    }
    PUT(&text, "}}");
    buf_copy_out(&text, out, len);
    iot_settings_clear(&settings);
    iot_config_free(config);
    return 0;
}
