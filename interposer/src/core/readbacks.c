#define _GNU_SOURCE
#include "core/readbacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/text.h"

/* A few kinds of file a run writes the same way: more are rare, and each costs a comparison
 * of its key at every open. */
enum { KEPT = 8 };

static struct readback {
    char *key;
    char *effective;          /* NULL: the read-back found none (reported null) */
    char *entries;            /* the not_effective entries, ", "-separated, without brackets */
    int nentries;
} kept[KEPT];
static int next_slot;

struct iot_list_mark iot_list_mark(const struct iot_list *list)
{
    return (struct iot_list_mark){list->items.len, list->n};
}

static const struct readback *find(const char *key)
{
    for (int i = 0; i < KEPT; i++)
        if (kept[i].key && strcmp(kept[i].key, key) == 0)
            return &kept[i];
    return NULL;
}

int iot_readback_recall(struct iot_file *file, const char *key)
{
    const struct readback *r = find(key);
    if (!r)
        return 0;
    file->effective = r->effective ? strdup(r->effective) : NULL;
    if (r->nentries) {
        put(iot_list_item(&file->not_effective), r->entries);
        file->not_effective.n += r->nentries - 1;
    }
    return 1;
}

static void forget(struct readback *r)
{
    free(r->key);
    free(r->effective);
    free(r->entries);
    memset(r, 0, sizeof *r);
}

void iot_readback_remember(struct iot_file *file, const char *key, struct iot_list_mark before)
{
    const struct iot_list *list = &file->not_effective;
    if (list->items.failed || find(key))
        return;
    /* the entries after the file's own, without the separator that joined them to those */
    size_t from = before.len + (before.n && list->n > before.n ? 2 : 0);
    const char *entries = list->items.s ? list->items.s + from : "";
    struct readback *r = &kept[next_slot];
    forget(r);
    r->key = strdup(key);
    r->effective = file->effective ? strdup(file->effective) : NULL;
    r->entries = strndup(entries, list->items.len - from);
    r->nentries = list->n - before.n;
    if (!r->key || (file->effective && !r->effective) || !r->entries)
        forget(r);
    else
        next_slot = (next_slot + 1) % KEPT;
}

void iot_readbacks_free(void)
{
    for (int i = 0; i < KEPT; i++)
        forget(&kept[i]);
    next_slot = 0;
}
