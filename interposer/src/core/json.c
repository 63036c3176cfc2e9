#define _GNU_SOURCE
#include "core/json.h"

#include "capture/text.h"

#include <stdarg.h>
#include <stdlib.h>

const char *iot_json_sep(int *count)
{
    return (*count)++ ? ", " : "";
}

void iot_list_open(struct iot_list *list)
{
    list->out = NULL;   /* opened with the first item: most lists stay empty */
    list->text = NULL;
    list->len = 0;
    list->n = 0;
}

FILE *iot_list_item(struct iot_list *list)
{
    if (!list->out)
        list->out = open_memstream(&list->text, &list->len);
    if (list->n++)
        fputs(", ", list->out);
    return list->out;
}

void iot_list_put(struct buf *out, struct iot_list *list)
{
    if (list->out)
        fflush(list->out);
    PUT(out, "[");
    if (list->text)
        put_bytes(out, list->text, list->len);
    PUT(out, "]");
    iot_list_discard(list);
}

void iot_list_discard(struct iot_list *list)
{
    if (list->out)
        fclose(list->out);
    free(list->text);
    list->out = NULL;
    list->text = NULL;
}

void iot_text_add(struct iot_text *text, const char *format, ...)
{
    va_list args;
    for (;;) {
        size_t room = text->cap - text->len;
        va_start(args, format);
        int n = vsnprintf(text->s ? text->s + text->len : NULL, room, format, args);
        va_end(args);
        if (n < 0)
            return;
        if ((size_t)n < room) {
            text->len += (size_t)n;
            return;
        }
        size_t cap = text->cap ? 2 * text->cap : 256;
        while (cap <= text->len + (size_t)n)
            cap *= 2;
        char *grown = realloc(text->s, cap);
        if (!grown)
            return;
        text->s = grown;
        text->cap = cap;
    }
}
