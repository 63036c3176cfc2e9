/* The few JSON writing helpers the kernels need (their output is one flat object per line).
 * The interposer compiles json.c into its library too: one string escaping for every JSON
 * line iotwin's C parts print. */
#ifndef IOTWIN_JSON_H
#define IOTWIN_JSON_H

#include <stdint.h>
#include <stdio.h>

void json_string(FILE *out, const char *text);  /* quoted and escaped; NULL -> null */
void json_uint_list(FILE *out, int n, const uint64_t values[]);

#endif
