/* Command-line options of the kernels: one table per kernel, parsed and documented by one piece
 * of code, and echoed as the "params" of the JSON report. */
#ifndef IOTWIN_OPTIONS_H
#define IOTWIN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    OPT_SWITCH, /* no value: stores `value` into *(int *)target */
    OPT_COUNT,  /* a positive integer into *(uint64_t *)target */
    OPT_LEVEL,  /* a non-negative integer into *(uint64_t *)target */
    OPT_DIMS,   /* "AxBxC" with `ndims` positive integers, or one "N" for every axis,
                 * into (uint64_t *)target */
    OPT_TEXT,   /* a string into *(const char **)target */
    OPT_REAL,   /* a non-negative real number into *(double *)target */
    OPT_OPERAND, /* a bare argument (no "--"), in table order, into *(const char **)target;
                  * `name` is what --help calls it */
} option_kind;

typedef struct {
    const char *name; /* without the leading "--" */
    option_kind kind;
    void *target;
    int value;  /* OPT_SWITCH: the value stored */
    int ndims;  /* OPT_DIMS: how many integers */
    const char *help;
    const char *report_as; /* name in the JSON params; NULL: not reported */
} kernel_option;

/* Parses argv[1..] against the tables; returns 0, or -1 with a message naming the bad input. */
int options_parse(int argc, char **argv, const kernel_option *const tables[], size_t ntables,
                  char *err, size_t errlen);
void options_print_help(FILE *out, const kernel_option *const tables[], size_t ntables);
/* The operands for a usage line, e.g. " WORKLOAD" (empty when there are none). */
void options_print_operands(FILE *out, const kernel_option *const tables[], size_t ntables);
/* Writes `"name": value, ...` for every option with a report_as name (no braces); returns how
 * many it wrote. */
int options_write_params(FILE *out, const kernel_option *const tables[], size_t ntables);

#endif
