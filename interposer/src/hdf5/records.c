/* The HDF5 layer's records: its state of a file and its datasets, and the table of datasets
 * open in the application (one thread drives HDF5: no lock). */
#include "hdf5/records.h"

#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"

/* Datasets open in the application, in the order they were opened: lookups by id scan only
 * these, newest first (a program usually writes and closes the dataset it opened last). */
static struct open_dataset {
    struct iot_dataset *dataset;
    struct iot_file *file;
} *open_datasets;
static int nopen, open_capacity;

static int has_id(const struct iot_file *file, const void *id)
{
    return iot_h5(file)->id == *(const hid_t *)id;
}

struct iot_file *iot_hdf5_file_find(hid_t id)
{
    return iot_file_find(&iot_hdf5_layer, has_id, &id);
}

static int open_under_name_of(const struct iot_file *file, const void *other)
{
    return file != other && iot_h5(file)->id >= 0
           && strcmp(file->name, ((const struct iot_file *)other)->name) == 0;
}

const struct iot_file *iot_file_open_as(const struct iot_file *file)
{
    return iot_file_find(&iot_hdf5_layer, open_under_name_of, file);
}

void iot_dataset_opened(struct iot_file *file, struct iot_dataset *dataset, hid_t id)
{
    if (nopen == open_capacity) {
        open_capacity = open_capacity ? 2 * open_capacity : 16;
        open_datasets = realloc(open_datasets, (size_t)open_capacity * sizeof *open_datasets);
    }
    dataset->id = id;
    open_datasets[nopen++] = (struct open_dataset){dataset, file};
}

void iot_dataset_closed(struct iot_dataset *dataset)
{
    for (int i = nopen - 1; i >= 0; i--)
        if (open_datasets[i].dataset == dataset) {
            memmove(&open_datasets[i], &open_datasets[i + 1],
                    (size_t)(nopen - i - 1) * sizeof *open_datasets);
            nopen--;
            break;
        }
    dataset->id = -1;
}

void iot_datasets_closed_with(const struct iot_file *file)
{
    int kept = 0;
    for (int i = 0; i < nopen; i++)
        if (open_datasets[i].file != file)
            open_datasets[kept++] = open_datasets[i];
    nopen = kept;
}

struct iot_dataset *iot_dataset_new(struct iot_file *file, hid_t id, const char *name)
{
    struct iot_dataset *dataset = calloc(1, sizeof *dataset);
    dataset->id = -1;
    dataset->part.name = strdup(name);
    dataset->dxpl = -1;
    dataset->resolved = iot_resolved_for(file->name, name);
    iot_list_open(&dataset->not_effective);
    iot_part_add(file, &dataset->part);
    if (id >= 0)
        iot_dataset_opened(file, dataset, id);
    return dataset;
}

struct iot_dataset *iot_dataset_find(hid_t id, struct iot_file **file)
{
    for (int i = nopen - 1; i >= 0; i--)
        if (open_datasets[i].dataset->id == id) {
            *file = open_datasets[i].file;
            return open_datasets[i].dataset;
        }
    return NULL;
}

void iot_datasets_free_all(void)
{
    free(open_datasets);
    open_datasets = NULL;
    nopen = open_capacity = 0;
}
