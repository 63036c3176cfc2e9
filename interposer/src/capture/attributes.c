/* A session's attributes, in the order the program wrote them among its dataset creations
 * (capture/capture.h): each entry of the record's `attributes` kept as JSON text as it comes,
 * the file's metadata that iosim makes again (sim-models/WORKLOAD.md `attributes`). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "capture/capture.h"
#include "capture/types.h"

/* Whether `object` is the root group or a dataset this session created. */
static int known_object(const struct iot_capture *c, const char *object)
{
    if (strcmp(object, "/") == 0)
        return 1;
    for (int i = 0; i < c->ndatasets; i++)
        if (c->datasets[i].created && strcmp(c->datasets[i].name, object) == 0)
            return 1;
    return 0;
}

/* The entry's start, `{"object": ..., "after_datasets": n`; NULL when the session cannot
 * take it (no capture, or an object iosim would not have made: then listed unsupported as
 * `what` and `label`). */
static struct buf *open_entry(struct iot_file *file, const char *object, const char *what,
                              const char *label)
{
    struct iot_capture *c = file ? file->capture : NULL;
    if (!c || c->failed)
        return NULL;
    if (!known_object(c, object)) {
        iot_capture_unsupported(file, what, label);
        return NULL;
    }
    struct buf *out = iot_list_item(&c->attributes);
    PUT(out, "{\"object\": ");
    put_string(out, object);
    PUT(out, ", \"after_datasets\": ");
    put_int(out, c->ndatasets);
    return out;
}

void iot_capture_attribute(struct iot_file *file, const char *object,
                           const struct cap_attribute *a)
{
    char label[512];
    snprintf(label, sizeof label, "%s of %s", a->name, object);
    struct buf *out = open_entry(file, object, "an attribute of an object neither the root "
                                 "group nor a dataset created in the session:", label);
    if (!out)
        return;
    PUT(out, ", \"name\": ");
    put_string(out, a->name);
    put_format(out, ", \"element_class\": \"%s\", \"element_bytes\": %lld", a->element_class,
               a->element_bytes);
    if (a->rank > 0) {
        long long dims[MAXR];
        for (int i = 0; i < a->rank; i++)
            dims[i] = (long long)a->dims[i];
        PUT(out, ", \"dims\": ");
        put_list(out, dims, a->rank);
    }
    PUT(out, "}");
}

void iot_capture_set_scale(struct iot_file *file, const char *object, const char *scale_name)
{
    struct buf *out = open_entry(file, object, "a dimension scale made of an object not "
                                 "created in the session:", object);
    if (!out)
        return;
    PUT(out, ", \"set_scale\": ");
    put_string(out, scale_name ? scale_name : "");
    PUT(out, "}");
}

void iot_capture_attach_scale(struct iot_file *file, const char *object, const char *scale,
                              unsigned axis)
{
    struct buf *out = open_entry(file, object, "a dimension scale attached to an object not "
                                 "created in the session:", object);
    if (!out)
        return;
    PUT(out, ", \"attach_scale\": ");
    put_string(out, scale);
    PUT(out, ", \"axis\": ");
    put_int(out, axis);
    PUT(out, "}");
}
