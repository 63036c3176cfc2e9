#define _GNU_SOURCE
#include "posix/capture.h"

#include "capture/capture.h"
#include "capture/types.h"

static int push_write(struct iot_capture *c, const struct cap_dataset *cd, const void *arg)
{
    const struct iot_posix_write *w = arg;
    hsize_t start = (hsize_t)w->offset, count = (hsize_t)w->bytes;
    (void)cd;
    return iot_capture_push_box(c, 1, &start, &count) < 0 ? -1 : 1;
}

void iot_posix_capture_close(struct iot_posix_file *pf, double start, double end)
{
    struct iot_file *file = pf->file;
    struct cap_dataset *cd = NULL;
    hsize_t extent = 0;
    if (!iot_capture_enabled())
        return;
    if (file->capture && !file->capture->failed && pf->failed)
        file->capture->failed = pf->failed;
    for (int i = 0; i < pf->nwrites; i++)
        if ((hsize_t)(pf->writes[i].offset + pf->writes[i].bytes) > extent)
            extent = (hsize_t)(pf->writes[i].offset + pf->writes[i].bytes);
    int index = extent ? iot_capture_new_dataset(file, "bytes@0", &cd) : 0;
    if (index) {
        iot_capture_set_shape(cd, 1, 1, &extent, NULL);
        for (int i = 0; i < pf->nwrites; i++) {
            const struct iot_posix_write *w = &pf->writes[i];
            if (w->bytes)
                iot_capture_write_to(file, index, 0, push_write, w, w->start, w->end);
            else
                iot_capture_flush(file, w->start, w->end);
        }
    }
    iot_capture_close(file, start, end);
}
