#include "options.h"

#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const kernel_option *find_option(const char *name, size_t namelen,
                                        const kernel_option *const tables[], size_t ntables)
{
    for (size_t t = 0; t < ntables; t++)
        for (const kernel_option *o = tables[t]; o->name; o++)
            if (o->kind != OPT_OPERAND && strlen(o->name) == namelen &&
                strncmp(o->name, name, namelen) == 0)
                return o;
    return NULL;
}

/* The operand entry that takes the `index`-th bare argument; NULL when there is none. */
static const kernel_option *find_operand(size_t index, const kernel_option *const tables[],
                                         size_t ntables)
{
    for (size_t t = 0; t < ntables; t++)
        for (const kernel_option *o = tables[t]; o->name; o++)
            if (o->kind == OPT_OPERAND && index-- == 0)
                return o;
    return NULL;
}

static int parse_integer(const char *text, uint64_t min, uint64_t *out)
{
    char *end;
    if (*text < '0' || *text > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || v < min)
        return -1;
    *out = v;
    return 0;
}

static int parse_dims(const char *text, int ndims, uint64_t out[])
{
    char copy[256];
    if (strlen(text) >= sizeof copy)
        return -1;
    strcpy(copy, text);
    char *save = NULL, *part = strtok_r(copy, "x", &save);
    int n = 0;
    for (; part; part = strtok_r(NULL, "x", &save), n++)
        if (n >= ndims || parse_integer(part, 1, &out[n]))
            return -1;
    for (int a = 1; n == 1 && a < ndims; a++) /* one N: the same on every axis */
        out[a] = out[0];
    return n == ndims || n == 1 ? 0 : -1;
}

static int parse_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= 0))
        return -1;
    *out = v;
    return 0;
}

static int store_value(const kernel_option *o, const char *value, char *err, size_t errlen)
{
    switch (o->kind) {
    case OPT_SWITCH:
        *(int *)o->target = o->value;
        return 0;
    case OPT_TEXT:
    case OPT_OPERAND:
        *(const char **)o->target = value;
        return 0;
    case OPT_REAL:
        if (!parse_real(value, o->target))
            return 0;
        snprintf(err, errlen, "--%s: '%s' is not a number >= 0", o->name, value);
        return -1;
    case OPT_COUNT:
    case OPT_LEVEL:
        if (!parse_integer(value, o->kind == OPT_COUNT ? 1 : 0, o->target))
            return 0;
        snprintf(err, errlen, "--%s: '%s' is not a %s integer", o->name, value,
                 o->kind == OPT_COUNT ? "positive" : "non-negative");
        return -1;
    case OPT_DIMS:
        if (!parse_dims(value, o->ndims, o->target))
            return 0;
        snprintf(err, errlen, "--%s: '%s' is not %d positive integers joined by 'x' (e.g. %s), "
                 "or one for every axis", o->name, value, o->ndims,
                 o->ndims == 3 ? "100x100x60" : "4x4");
        return -1;
    }
    return -1;
}

int options_parse(int argc, char **argv, const kernel_option *const tables[], size_t ntables,
                  char *err, size_t errlen)
{
    size_t operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            const kernel_option *o = find_operand(operands++, tables, ntables);
            if (!o) {
                snprintf(err, errlen, "unexpected argument '%s' (options start with --; "
                         "see --help)", arg);
                return -1;
            }
            store_value(o, arg, err, errlen);
            continue;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t namelen = eq ? (size_t)(eq - name) : strlen(name);
        const kernel_option *o = find_option(name, namelen, tables, ntables);
        if (!o) {
            snprintf(err, errlen, "unknown option '%.*s' (see --help)", (int)(namelen + 2), arg);
            return -1;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (o->kind == OPT_SWITCH && value) {
            snprintf(err, errlen, "--%s takes no value", o->name);
            return -1;
        }
        if (o->kind != OPT_SWITCH && !value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--%s needs a value", o->name);
                return -1;
            }
            value = argv[++i];
        }
        if (store_value(o, value, err, errlen))
            return -1;
    }
    return 0;
}

static void write_value(FILE *out, const kernel_option *o)
{
    const uint64_t *v = o->target;
    switch (o->kind) {
    case OPT_SWITCH:
        fputs(*(int *)o->target ? "true" : "false", out);
        break;
    case OPT_TEXT:
    case OPT_OPERAND:
        if (*(const char **)o->target)
            json_string(out, *(const char **)o->target);
        else
            fputs("null", out);
        break;
    case OPT_REAL:
        fprintf(out, "%g", *(const double *)o->target);
        break;
    case OPT_COUNT:
    case OPT_LEVEL:
        fprintf(out, "%llu", (unsigned long long)v[0]);
        break;
    case OPT_DIMS:
        json_uint_list(out, o->ndims, v);
        break;
    }
}

void options_print_help(FILE *out, const kernel_option *const tables[], size_t ntables)
{
    for (size_t t = 0; t < ntables; t++)
        for (const kernel_option *o = tables[t]; o->name; o++) {
            char head[64];
            const char *meta = o->kind == OPT_SWITCH ? ""
                               : o->kind == OPT_DIMS ? " AxBxC"
                               : o->kind == OPT_TEXT ? " TEXT"
                               : o->kind == OPT_REAL ? " X" : " N";
            if (o->kind == OPT_OPERAND)
                snprintf(head, sizeof head, "%s", o->name);
            else
                snprintf(head, sizeof head, "--%s%s", o->name, meta);
            fprintf(out, "  %-26s %s\n", head, o->help);
        }
}

void options_print_operands(FILE *out, const kernel_option *const tables[], size_t ntables)
{
    for (size_t t = 0; t < ntables; t++)
        for (const kernel_option *o = tables[t]; o->name; o++)
            if (o->kind == OPT_OPERAND)
                fprintf(out, " %s", o->name);
}

int options_write_params(FILE *out, const kernel_option *const tables[], size_t ntables)
{
    int written = 0;
    for (size_t t = 0; t < ntables; t++)
        for (const kernel_option *o = tables[t]; o->name; o++) {
            if (!o->report_as)
                continue;
            fprintf(out, "%s\"%s\": ", written++ ? ", " : "", o->report_as);
            write_value(out, o);
        }
    return written;
}
