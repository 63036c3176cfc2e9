/* Writing the report's JSON: strings (json_string, shared with the kernels), and lists built
 * item by item in memory. */
#pragma once
#include <stdio.h>

#include "common/json.h"

/* "" before the first member of an object or list, ", " before the others. */
const char *iot_json_sep(int *count);

/* A JSON array's items, accumulated in a memory stream. */
struct iot_list {
    FILE *out;
    char *text;
    size_t len;
    int n;
};

void iot_list_open(struct iot_list *list);
FILE *iot_list_item(struct iot_list *list);      /* the stream, after a separator if needed */
struct buf;
void iot_list_put(struct buf *out, struct iot_list *list);  /* "[items]"; frees the list */
void iot_list_discard(struct iot_list *list);
