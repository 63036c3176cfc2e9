/* The tuning config on the C side: parse + validate (against the generated key table) and
 * resolve the settings that apply to one file / dataset. Mirrors tuner/iotwin/config.py. */
#pragma once
#include <stddef.h>

#include "key_table.h"

struct iot_settings;

struct iot_value {
    int set;
    long long i;          /* int, size, bool (0/1), enum index; -1: a size given as a word */
    char *s;              /* string; a size's word (`end: eof`) */
    long long *list;      /* int-list */
    int nlist;
    char **names;         /* string-map */
    char **values;
    int nmap;
    struct iot_settings *records;  /* record-list: each entry's fields (by their key ids) */
    int nrecords;
};

struct iot_settings {
    struct iot_value v[IOT_NKEYS];
};

struct iot_dataset_block {
    struct iot_settings s;  /* s.v[IOT_K_SCOPE_DATASET_MATCH].s is its glob */
};

struct iot_file_block {
    struct iot_settings s;  /* s.v[IOT_K_SCOPE_FILE_MATCH].s is its glob */
    struct iot_dataset_block *datasets;
    int ndatasets;
};

struct iot_config {
    struct iot_settings top;
    struct iot_file_block *files;
    int nfiles;
    /* the `match` patterns as the shared rules take them (iotwin_rules_applying) */
    const char **file_patterns;
    int *first_dataset;
    const char **dataset_patterns;
    int *file_rule_used;      /* files[i] matched a file this process opened */
};

/* 0 and *out set on success; -1 with a one-line message ("path: key.path: problem") in err. */
int iot_config_load(const char *path, struct iot_config **out, char *err, size_t errlen);
void iot_config_free(struct iot_config *config);

/* Settings for file_name (and dataset_name, or NULL): the blocks the shared rules say apply
 * (iotwin_rules_applying, as iotwin.config.resolve takes them), merged in that order, later
 * values winning key by key; `matched` receives the labels of the blocks that applied, comma
 * separated ("top,files[0]"). Free the result with iot_settings_clear. `out` NULL: only the
 * labels (they name the settings: the same labels, the same settings). */
void iot_resolve(const struct iot_config *config, const char *file_name, const char *dataset_name,
                 struct iot_settings *out, char *matched, size_t matched_len);
void iot_settings_clear(struct iot_settings *settings);

/* The label of a config's rule, as the report names it: "files[1]", or "files[1].datasets[0]"
 * for one of its dataset blocks (dataset < 0: the file block). */
void iot_rule_label(char *out, size_t len, int file, int dataset);

/* A size with units ("4MiB", "64K", "1048576") in bytes, as iotwin.units.parse_size. */
int iot_parse_size(const char *text, long long *bytes);
