#define _GNU_SOURCE
#include "json.h"

#include <stdlib.h>

void iot_json_string(FILE *out, const char *text)
{
    if (!text) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

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
