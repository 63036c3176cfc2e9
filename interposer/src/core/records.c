/* The table of open files. The programs this targets drive their I/O library from one thread
 * (Debian's parallel HDF5 is not thread-safe anyway), so the table needs no lock. */
#include "core/records.h"

#include "core/layer.h"

#include <stdlib.h>
#include <string.h>

static struct iot_file **files;
static int nfiles;

struct iot_file *iot_file_new(const struct iot_layer *layer, const char *name, const char *how)
{
    struct iot_file *file = calloc(1, sizeof *file);
    file->layer = layer;
    file->fh = file->fh_alone = MPI_FILE_NULL;
    file->name = strdup(name);
    file->how = how;
    file->driver = "other";
    file->comm = MPI_COMM_NULL;
    file->requested = MPI_INFO_NULL;
    iot_list_open(&file->not_effective);
    if (layer->file_new)
        file->state = layer->file_new(file);
    files = realloc(files, (size_t)(nfiles + 1) * sizeof *files);
    files[nfiles++] = file;
    return file;
}

struct iot_file *iot_file_find(const struct iot_layer *layer, iot_file_match match,
                               const void *key)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i]->layer == layer && match(files[i], key))
            return files[i];
    return NULL;
}

void iot_file_free(struct iot_file *file)
{
    for (int i = 0; i < file->nparts; i++)
        file->layer->part_free(file->parts[i]);
    free(file->parts);
    if (file->layer->file_free)
        file->layer->file_free(file);
    if (file->requested != MPI_INFO_NULL)
        MPI_Info_free(&file->requested);
    iot_settings_clear(&file->settings);
    iot_list_discard(&file->not_effective);
    free(file->name);
    free(file->applied);
    free(file->effective);
    free(file);
}

void iot_file_forget(struct iot_file *file)
{
    iot_file_detach(file);
    iot_file_free(file);
}

void iot_file_detach(struct iot_file *file)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i] == file) {
            files[i] = files[--nfiles];
            break;
        }
}

void iot_part_add(struct iot_file *file, struct iot_part *part)
{
    if ((file->nparts & (file->nparts - 1)) == 0)   /* 0, 1, 2, 4, ...: double */
        file->parts = realloc(file->parts,
                              (size_t)(file->nparts ? 2 * file->nparts : 1) * sizeof *file->parts);
    file->parts[file->nparts++] = part;
}

void iot_records_free_all(void)
{
    while (nfiles)
        iot_file_forget(files[0]);
    free(files);
    files = NULL;
}

void iot_not_effective(struct iot_list *list, const char *key, const char *requested,
                       const char *effective, const char *reason)
{
    struct buf *out = iot_list_item(list);
    PUT(out, "{\"key\": ");
    put_string(out, key);
    PUT(out, ", \"requested\": ");
    put_string(out, requested);
    PUT(out, ", \"effective\": ");
    put_string(out, effective);
    PUT(out, ", \"reason\": ");
    put_string(out, reason);
    PUT(out, "}");
}
