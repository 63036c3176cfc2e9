#include "json.h"

void json_string(FILE *out, const char *text)
{
    char form[7];
    if (!text) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        const char *escape = json_escape(*c, form);
        if (escape)
            fputs(escape, out);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void json_uint_list(FILE *out, int n, const uint64_t values[])
{
    fputc('[', out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)values[i]);
    fputc(']', out);
}
