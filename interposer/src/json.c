#define _GNU_SOURCE
#include "json.h"

#include <stdlib.h>

const char *iot_json_sep(int *count)
{
    return (*count)++ ? ", " : "";
}

void iot_list_open(struct iot_list *list)
{
    list->text = NULL;
    list->len = 0;
    list->n = 0;
    list->out = open_memstream(&list->text, &list->len);
}

FILE *iot_list_item(struct iot_list *list)
{
    if (list->n++)
        fputs(", ", list->out);
    return list->out;
}

void iot_list_write(FILE *out, struct iot_list *list)
{
    fflush(list->out);
    fprintf(out, "[%s]", list->text ? list->text : "");
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
