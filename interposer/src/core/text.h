/* The library's JSON text: a plain growing buffer, numbers formatted by hand. A capture record
 * holds a few numbers per call, and stdio (even on a memory stream) costs more than a small
 * write's whole capture; a file's records are written once per file session, where opening
 * and closing a memory stream cost more than what goes into it. */
#pragma once
#include <stddef.h>
#include <string.h>

struct buf {
    char *s;
    size_t len, cap;
    int failed;
};

/* Room for `need` items in *items (a pointer to an array of capacity *cap, doubled as needed);
 * 0 on failure. The text's growth, and the capture's arrays'. */
int iot_grow(void *items, size_t *cap, size_t need, size_t size);
static inline int iot_room(void *items, size_t *cap, size_t need, size_t size)
{
    return need <= *cap || iot_grow(items, cap, need, size);
}

void put_bytes_grown(struct buf *b, const char *text, size_t n);
/* Room for n more bytes at once, for a text whose size is known roughly: growing a large text
 * step by step costs a reallocation (and a copy) per doubling. */
void buf_reserve(struct buf *b, size_t n);
/* Inline while there is room: most pieces are a few bytes (a literal's copy is then inlined). */
static inline void put_bytes(struct buf *b, const char *text, size_t n)
{
    if (b->len + n < b->cap && !b->failed) {
        memcpy(b->s + b->len, text, n);
        b->len += n;
        b->s[b->len] = '\0';
        return;
    }
    put_bytes_grown(b, text, n);
}
static inline void put(struct buf *b, const char *text)
{
    put_bytes(b, text, strlen(text));
}
#define PUT(b, literal) put_bytes(b, literal, sizeof literal - 1)
void put_int(struct buf *b, long long v);
void put_seconds(struct buf *b, double seconds);   /* to the microsecond */
void put_string(struct buf *b, const char *text);   /* a JSON string; NULL: null */
/* The text, the caller's to free; NULL when part of it could not be kept (out of memory): a
 * truncated JSON text is worse than none. */
char *buf_take(struct buf *b);
/* The text into the caller's buffer of `len` bytes (cut if longer; "" if memory ran out);
 * frees it. */
void buf_copy_out(struct buf *b, char *out, size_t len);
/* printf-style, for the few pieces put_* do not cover */
void put_format(struct buf *b, const char *format, ...) __attribute__((format(printf, 2, 3)));
void put_list(struct buf *b, const long long *v, int n);   /* [v0, v1, ...] */
