#define _GNU_SOURCE
#include "core/json.h"

#include "capture/text.h"

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
