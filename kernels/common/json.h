/* The few JSON writing helpers the kernels need (their output is one flat object per line).
 * The interposer links them too (the iotwin_common library: kernels/common/CMakeLists.txt):
 * one string escaping for every JSON line iotwin's C parts print. */
#ifndef IOTWIN_JSON_H
#define IOTWIN_JSON_H

#include <stdint.h>
#include <stdio.h>

void json_string(FILE *out, const char *text);  /* quoted and escaped; NULL -> null */
/* One character of a JSON string: NULL when it stands as it is, else its escape (`\"`,
 * `\u001f`) written into `form`. */
const char *json_escape(unsigned char c, char form[7]);
/* `text` quoted and escaped into `out`, which holds JSON_QUOTED_MAX(strlen(text)) bytes; the
 * length written (without the terminating NUL). */
size_t json_quote(char *out, const char *text);
#define JSON_QUOTED_MAX(len) (6 * (len) + 3)
void json_uint_list(FILE *out, int n, const uint64_t values[]);

#endif
