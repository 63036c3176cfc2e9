/* The tables of open files and their datasets. HDF5 applications drive HDF5 from one thread
 * (Debian's parallel HDF5 is not thread-safe anyway), so the tables need no lock. */
#include "core/records.h"

#include "capture/capture.h"
#include "core/runtime.h"
#include "mpiio/files.h"

#include <stdlib.h>
#include <string.h>

const char *const IOT_API_NAMES[] = {"hdf5", "mpiio", "posix"};

static struct iot_file **files;
static int nfiles;

/* Datasets open in the application, in the order they were opened: lookups by id scan only
 * these, newest first (a program usually writes and closes the dataset it opened last). */
static struct open_dataset {
    struct iot_dataset *dataset;
    struct iot_file *file;
} *open_datasets;
static int nopen, open_capacity;

struct iot_file *iot_file_new(enum iot_api api, hid_t id, const char *name, const char *how)
{
    struct iot_file *file = calloc(1, sizeof *file);
    file->api = api;
    file->id = id;
    file->fh = MPI_FILE_NULL;
    file->name = strdup(name);
    file->how = how;
    file->driver = api == IOT_API_MPIIO ? "mpiio" : "other";   /* HDF5's: named at its open */
    file->comm = MPI_COMM_NULL;
    file->requested = MPI_INFO_NULL;
    iot_list_open(&file->not_effective);
    files = realloc(files, (size_t)(nfiles + 1) * sizeof *files);
    files[nfiles++] = file;
    return file;
}

struct iot_file *iot_file_find(hid_t id)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i]->id == id && files[i]->api == IOT_API_HDF5)
            return files[i];
    return NULL;
}

const struct iot_file *iot_file_open_as(const struct iot_file *file)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i] != file && files[i]->api == IOT_API_HDF5 && files[i]->id >= 0
            && strcmp(files[i]->name, file->name) == 0)
            return files[i];
    return NULL;
}

struct iot_file *iot_file_of_mpi(MPI_File fh)
{
    for (int i = 0; i < nfiles; i++)
        if (files[i]->fh == fh && files[i]->api == IOT_API_MPIIO)
            return files[i];
    return NULL;
}

static void dataset_free(struct iot_dataset *dataset)
{
    if (dataset->dxpl >= 0)
        H5Pclose(dataset->dxpl);
    iot_list_discard(&dataset->not_effective);
    free(dataset->name);
    free(dataset->applied_creation);
    free(dataset);
}

void iot_file_free(struct iot_file *file)
{
    for (int i = 0; i < file->ndatasets; i++)
        dataset_free(file->datasets[i]);
    free(file->datasets);
    iot_capture_free(file->capture);
    iot_mpiio_file_free(file->mpiio);
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
    int kept = 0;
    for (int i = 0; i < nopen; i++)
        if (open_datasets[i].file != file)
            open_datasets[kept++] = open_datasets[i];
    nopen = kept;
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

struct iot_dataset *iot_dataset_new(struct iot_file *file, hid_t id, const char *name)
{
    struct iot_dataset *dataset = calloc(1, sizeof *dataset);
    dataset->id = -1;
    dataset->name = strdup(name);
    dataset->dxpl = -1;
    dataset->resolved = iot_resolved_for(file->name, name);
    iot_list_open(&dataset->not_effective);
    if ((file->ndatasets & (file->ndatasets - 1)) == 0)   /* 0, 1, 2, 4, ...: double */
        file->datasets = realloc(file->datasets,
                                 (size_t)(file->ndatasets ? 2 * file->ndatasets : 1) * sizeof *file->datasets);
    file->datasets[file->ndatasets++] = dataset;
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

void iot_records_free_all(void)
{
    while (nfiles)
        iot_file_forget(files[0]);
    free(files);
    files = NULL;
    free(open_datasets);
    open_datasets = NULL;
    open_capacity = 0;
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

const char *iot_layout_name(H5D_layout_t layout)
{
    switch (layout) {
    case H5D_COMPACT: return "compact";
    case H5D_CONTIGUOUS: return "contiguous";
    case H5D_CHUNKED: return "chunked";
    case H5D_VIRTUAL: return "virtual";
    default: return "unknown";
    }
}

const char *iot_fill_value_name(H5D_fill_value_t status)
{
    return status == H5D_FILL_VALUE_USER_DEFINED ? "user"
           : status == H5D_FILL_VALUE_UNDEFINED  ? "undefined"
                                                 : "default";
}
