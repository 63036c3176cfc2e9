/* Types of the generated key table (key_table.h, from config-schema.yaml). */
#pragma once

enum iot_type {
    IOT_INT, IOT_SIZE, IOT_BOOL, IOT_ENUM, IOT_STRING, IOT_STRING_MAP, IOT_INT_LIST, IOT_RECORD,
    IOT_RECORD_LIST
};

#define IOT_MAX_ENUM 8
#define IOT_MAX_SCOPE_KEYS 4

struct iot_key {
    int block;               /* index into IOT_BLOCK_NAMES; -1 for scope-level keys */
    const char *name;
    enum iot_type type;
    int has_min;
    long long min;
    int has_max;
    long long max;
    long long multiple_of;   /* 0: none */
    const char *values[IOT_MAX_ENUM];  /* enum values (a size's words), NULL-terminated */
    const char *hint;        /* ROMIO hint name, or NULL */
    const char *mca;         /* Open MPI MCA parameter name, or NULL */
    int required;
    int exclusive_with;      /* key index, or -1 (a bool set to false excludes nothing) */
    int parent;              /* record key index for record fields, or -1 */
    int first_only;          /* a record-list field only its first entry may set */
    int increasing;          /* a record-list's field increasing entry by entry, or -1 */
    int last_field;          /* a record-list's field whose last entry is last_word, or -1 */
    const char *last_word;
    const char *expected;    /* "expected <this>, got ..." */
};

struct iot_scope {
    const char *name;
    unsigned blocks;         /* bit set of iot_block_bit: blocks allowed as sub-mappings */
    const char *list_name;   /* key of the list of nested scopes, or NULL */
    int list_scope;          /* scope of that list's entries, or -1 */
    unsigned inline_block;   /* block whose keys sit directly in this scope, or 0 */
    int keys[IOT_MAX_SCOPE_KEYS];  /* scope-level keys, -1-terminated */
};
