/* Writing the report's JSON: strings (json_string, shared with the kernels), and lists built
 * item by item in the library's text buffer (core/text.h). */
#pragma once
#include <stdio.h>

#include "core/text.h"
#include "common/json.h"

/* "" before the first member of an object or list, ", " before the others. */
const char *iot_json_sep(int *count);

/* A JSON array's items, accumulated in a text buffer (most lists stay empty: no allocation). */
struct iot_list {
    struct buf items;
    int n;
};

void iot_list_open(struct iot_list *list);
struct buf *iot_list_item(struct iot_list *list);   /* the buffer, after a separator if needed */
void iot_list_put(struct buf *out, struct iot_list *list);  /* "[items]"; frees the list */
void iot_list_discard(struct iot_list *list);
