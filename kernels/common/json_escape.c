/* JSON string escaping, into memory: what json.c's stream writers and the interposer's text
 * buffer (interposer/src/core/text.c) share. Apart from the stream writers so that a library
 * linking only this writes to no stream. */
#include <string.h>

#include "json.h"

/* One character of a string in JSON: as it is (NULL) or its escape into `form`. */
const char *json_escape(unsigned char c, char form[7])
{
    static const char hex[] = "0123456789abcdef";
    if (c != '"' && c != '\\' && c >= 0x20)
        return NULL;
    if (c == '"' || c == '\\') {
        form[0] = '\\', form[1] = (char)c, form[2] = '\0';
        return form;
    }
    memcpy(form, "\\u00", 4);
    form[4] = hex[c >> 4], form[5] = hex[c & 15], form[6] = '\0';
    return form;
}

size_t json_quote(char *out, const char *text)
{
    char form[7], *p = out;
    *p++ = '"';
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        const char *escape = json_escape(*c, form);
        if (!escape) {
            *p++ = (char)*c;
            continue;
        }
        size_t n = strlen(escape);
        memcpy(p, escape, n);
        p += n;
    }
    *p++ = '"';
    *p = '\0';
    return (size_t)(p - out);
}

