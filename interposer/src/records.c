/* The tables of open files and their datasets. HDF5 applications drive HDF5 from one thread
 * (Debian's parallel HDF5 is not thread-safe anyway), so the tables need no lock. */
#include "records.h"

#include <stdlib.h>
#include <string.h>

static struct iot_file **files;
static int nfiles;
static struct iot_dataset *last_found;   /* many writes in a row go to one dataset */
static struct iot_file *last_found_file;

struct iot_file *iot_file_new(hid_t id, const char *name, const char *how)
{
    struct iot_file *file = calloc(1, sizeof *file);
    file->id = id;
    file->name = strdup(name);
    file->how = how;
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
        if (files[i]->id == id)
            return files[i];
    return NULL;
}

static void dataset_free(struct iot_dataset *dataset)
{
    if (dataset->dxpl >= 0)
        H5Pclose(dataset->dxpl);
    iot_settings_clear(&dataset->settings);
    iot_list_discard(&dataset->not_effective);
    free(dataset->name);
    free(dataset->applied_creation);
    free(dataset->effective);
    free(dataset);
}

static void file_free(struct iot_file *file)
{
    for (int i = 0; i < file->ndatasets; i++)
        dataset_free(file->datasets[i]);
    free(file->datasets);
    if (file->comm != MPI_COMM_NULL)
        MPI_Comm_free(&file->comm);
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
    for (int i = 0; i < nfiles; i++)
        if (files[i] == file) {
            files[i] = files[--nfiles];
            break;
        }
    if (last_found_file == file)
        last_found = NULL, last_found_file = NULL;
    file_free(file);
}

struct iot_dataset *iot_dataset_new(struct iot_file *file, hid_t id, const char *name)
{
    struct iot_dataset *dataset = calloc(1, sizeof *dataset);
    dataset->id = id;
    dataset->name = strdup(name);
    dataset->dxpl = -1;
    iot_list_open(&dataset->not_effective);
    file->datasets = realloc(file->datasets, (size_t)(file->ndatasets + 1) * sizeof *file->datasets);
    file->datasets[file->ndatasets++] = dataset;
    return dataset;
}

struct iot_dataset *iot_dataset_find(hid_t id, struct iot_file **file)
{
    if (last_found && last_found->id == id) {
        *file = last_found_file;
        return last_found;
    }
    for (int i = 0; i < nfiles; i++)
        for (int j = 0; j < files[i]->ndatasets; j++)
            if (files[i]->datasets[j]->id == id) {
                last_found = files[i]->datasets[j];
                last_found_file = *file = files[i];
                return last_found;
            }
    return NULL;
}

void iot_records_free_all(void)
{
    while (nfiles)
        iot_file_forget(files[0]);
    free(files);
    files = NULL;
}
