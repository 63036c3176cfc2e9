#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/text.h"

#include "common/json.h"

int iot_grow(void *items, size_t *cap, size_t need, size_t size)
{
    void **p = items;
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *bigger = realloc(*p, n * size);
    if (!bigger)
        return 0;
    *p = bigger;
    *cap = n;
    return 1;
}

void put_bytes_grown(struct buf *b, const char *text, size_t n)
{
    if (b->failed || !iot_room(&b->s, &b->cap, b->len + n + 1, 1)) {
        b->failed = 1;
        return;
    }
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* Room for n more bytes at the end: where to write them, or NULL. */
static char *reserve(struct buf *b, size_t n)
{
    if (b->failed || !iot_room(&b->s, &b->cap, b->len + n + 1, 1)) {
        b->failed = 1;
        return NULL;
    }
    return b->s + b->len;
}

void buf_reserve(struct buf *b, size_t n)
{
    reserve(b, n);
}

static void wrote(struct buf *b, char *end)
{
    b->len = (size_t)(end - b->s);
    *end = '\0';
}

#define INT_CHARS 21

static char *format_int(char *p, long long v)
{
    char digits[INT_CHARS];
    int n = 0;
    unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
    do
        digits[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = digits[--n];
    return p;
}

void put_int(struct buf *b, long long v)
{
    char *p = reserve(b, INT_CHARS);
    if (p)
        wrote(b, format_int(p, v));
}

void put_seconds(struct buf *b, double seconds)
{
    long long us = (long long)(seconds * 1e6 + (seconds < 0 ? -0.5 : 0.5));
    char *p = reserve(b, INT_CHARS + 8);
    if (!p)
        return;
    if (us < 0) {
        *p++ = '-';
        us = -us;
    }
    p = format_int(p, us / 1000000);
    *p++ = '.';
    for (int i = 5, f = (int)(us % 1000000); i >= 0; i--, f /= 10)
        p[i] = (char)('0' + f % 10);
    wrote(b, p + 6);
}

/* Names that need no escaping are copied, the others go through json_quote. */
void put_string(struct buf *b, const char *text)
{
    if (!text) {
        PUT(b, "null");
        return;
    }
    const char *p = text;
    while (*p && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    if (!*p) {
        PUT(b, "\"");
        put_bytes(b, text, (size_t)(p - text));
        PUT(b, "\"");
        return;
    }
    char *out = reserve(b, JSON_QUOTED_MAX(strlen(text)));
    if (out)
        wrote(b, out + json_quote(out, text));
}

void put_list(struct buf *b, const long long *v, int n)
{
    char *p = reserve(b, 2 + (size_t)n * (INT_CHARS + 2));
    if (!p)
        return;
    *p++ = '[';
    for (int i = 0; i < n; i++) {
        if (i)
            *p++ = ',', *p++ = ' ';
        p = format_int(p, v[i]);
    }
    *p++ = ']';
    wrote(b, p);
}

void buf_copy_out(struct buf *b, char *out, size_t len)
{
    char *s = buf_take(b);
    snprintf(out, len, "%s", s ? s : "");
    free(s);
}

void put_format(struct buf *b, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *p = n >= 0 ? reserve(b, (size_t)n) : NULL;
    if (!p)
        return;
    va_start(args, format);
    vsnprintf(p, (size_t)n + 1, format, args);
    va_end(args);
    wrote(b, p + n);
}

char *buf_take(struct buf *b)
{
    if (!b->failed)
        return b->s;
    free(b->s);
    return NULL;
}
