/* Types of the generated record tables (workload_table.c, from workload-schema.yaml by
 * gen_workload_table.py): one row per key of a record, as iotwin.formats.records.Field. */
#ifndef IOTWIN_FORMATS_RECORD_TABLE_H
#define IOTWIN_FORMATS_RECORD_TABLE_H

enum fmt_type {
    FMT_INT, FMT_NUMBER, FMT_BOOL, FMT_ENUM, FMT_STRING, FMT_RECORD, FMT_LIST, FMT_INT_LIST,
    FMT_INT_LISTS, FMT_STRING_LIST
};

struct fmt_field {
    const char *name;
    enum fmt_type type;
    int required, nullable, per_axis;
    int record;                  /* FMT_RECORD, FMT_LIST: index of the record; else -1 */
    long long min, max;          /* FMT_INT, and each integer of an integer list */
    double fmin, fmax;           /* FMT_NUMBER */
    long min_items, max_items;   /* lists: how many entries (max_items -1: any number) */
    const char *const *values;   /* FMT_ENUM: NULL-terminated */
    int has_default;
    long long default_int;       /* FMT_INT, FMT_BOOL, and per-axis lists' entries */
    double default_number;       /* FMT_NUMBER */
    const char *default_text;    /* FMT_ENUM, FMT_STRING */
    const char *expected;        /* "expected <this>, got ..." */
    const char *item_expected;   /* integer lists: the same for one of their integers */
};

struct fmt_record {
    const char *name;
    const struct fmt_field *fields;
    int nfields;
};

#endif
