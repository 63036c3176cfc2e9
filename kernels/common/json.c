#include "json.h"

void json_string(FILE *out, const char *text)
{
    if (!text) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    const unsigned char *run = (const unsigned char *)text;   /* characters copied as they are */
    for (const unsigned char *c = run;; c++) {
        if (*c && *c != '"' && *c != '\\' && *c >= 0x20)
            continue;
        fwrite(run, 1, (size_t)(c - run), out);
        if (!*c)
            break;
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else
            fprintf(out, "\\u%04x", *c);
        run = c + 1;
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
