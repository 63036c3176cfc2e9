#define _GNU_SOURCE
#include "core/json.h"

#include "core/text.h"

#include <stdlib.h>

const char *iot_json_sep(int *count)
{
    return (*count)++ ? ", " : "";
}

void iot_list_open(struct iot_list *list)
{
    list->items = (struct buf){NULL, 0, 0, 0};
    list->n = 0;
}

struct buf *iot_list_item(struct iot_list *list)
{
    if (list->n++)
        PUT(&list->items, ", ");
    return &list->items;
}

void iot_list_put(struct buf *out, struct iot_list *list)
{
    PUT(out, "[");
    if (list->items.failed)
        out->failed = 1;   /* an item lost: the whole text is refused, never a wrong list */
    else if (list->items.s)
        put_bytes(out, list->items.s, list->items.len);
    PUT(out, "]");
    iot_list_discard(list);
}

void iot_list_discard(struct iot_list *list)
{
    free(list->items.s);
    iot_list_open(list);
}
