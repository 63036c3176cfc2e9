/* Sizes with units, exactly as iotwin.units.parse_size reads them: an optional fraction,
 * an optional k/m/g/t/p with an optional "b"/"ib", binary factors whatever the spelling. */
#include <ctype.h>
#include <string.h>

#include "core/config.h"

static long long unit_factor(char unit)
{
    switch (tolower((unsigned char)unit)) {
    case 'k': return 1LL << 10;
    case 'm': return 1LL << 20;
    case 'g': return 1LL << 30;
    case 't': return 1LL << 40;
    case 'p': return 1LL << 50;
    default: return 0;
    }
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* "b" or "ib" (any case) or nothing; returns the position after it. */
static const char *skip_byte_suffix(const char *p)
{
    if (tolower((unsigned char)p[0]) == 'i' && tolower((unsigned char)p[1]) == 'b')
        return p + 2;
    if (tolower((unsigned char)p[0]) == 'b')
        return p + 1;
    return p;
}

int iot_parse_size(const char *text, long long *bytes)
{
    const char *p = skip_space(text);
    long long mantissa = 0, scale = 1;
    int digits = 0, fraction = 0;
    for (; isdigit((unsigned char)*p) || (*p == '.' && !fraction && digits); p++) {
        if (*p == '.') {
            fraction = 1;
            if (!isdigit((unsigned char)p[1]))
                return -1;
            continue;
        }
        if (mantissa > (1LL << 50))
            return -1;
        mantissa = mantissa * 10 + (*p - '0');
        scale *= fraction ? 10 : 1;
        digits++;
    }
    if (!digits)
        return -1;
    p = skip_space(p);
    long long factor = unit_factor(*p);
    if (factor)
        p++;
    else
        factor = 1;
    p = skip_space(skip_byte_suffix(p));
    if (*p || (factor > 1 && mantissa > (1LL << 62) / factor))
        return -1;
    if ((mantissa * factor) % scale)
        return -1;
    *bytes = mantissa * factor / scale;
    return 0;
}
