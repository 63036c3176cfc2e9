#include "pnetcdf/file.h"

#include <pnetcdf.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "core/filesystem.h"
#include "core/layer.h"
#include "core/runtime.h"
#include "core/text.h"
#include "lustre/lustre.h"
#include "mpiio/capture.h"
#include "mpiio/file.h"
#include "mpiio/hints.h"
#include "mpiio/requests.h"
#include "pnetcdf/layer.h"

/* The open files by netCDF id (file->state is the MPI-IO layer's capture state). */
static struct open_file {
    int ncid;
    struct iot_file *file;
} *open_files;
static int nopen, open_cap;

static void remember(int ncid, struct iot_file *file)
{
    if (nopen == open_cap) {
        int cap = open_cap ? 2 * open_cap : 8;
        struct open_file *grown = realloc(open_files, cap * sizeof *grown);
        if (!grown)
            return;   /* not reported: better than failing the program's open */
        open_files = grown;
        open_cap = cap;
    }
    open_files[nopen++] = (struct open_file){ncid, file};
}

/* The index of `ncid` among the open files, or -1. */
static int find(int ncid)
{
    for (int i = 0; i < nopen; i++)
        if (open_files[i].ncid == ncid)
            return i;
    return -1;
}

/* The file of `ncid`, taken out of the open ones (NULL: none). */
static struct iot_file *take(int ncid)
{
    int i = find(ncid);
    if (i < 0)
        return NULL;
    struct iot_file *file = open_files[i].file;
    open_files[i] = open_files[--nopen];
    return file;
}

void iot_pnetcdf_files_free(void)
{
    free(open_files);
    open_files = NULL;
    nopen = open_cap = 0;
}

static enum iot_lustre_open lustre_open(int create, int mode)
{
    if (!create)
        return IOT_OPENING;
    return mode & NC_NOCLOBBER ? IOT_CREATE_EXCLUSIVE : IOT_CREATE_REPLACING;
}

static struct iot_file *new_file(int create, MPI_Comm comm, const char *path)
{
    struct iot_file *file = iot_file_new(&iot_pnetcdf_layer, path, create ? "create" : "open");
    iot_settings_for(&file->settings, file->matched, path, NULL);
    file->requested = iot_hints_requested(file);
    iot_mpiio_opened_on(file, comm);
    iot_hints_record_applied(file);
    return file;
}

/* The real open with the requested hints merged into a copy of the program's info; as the
 * program asked if PnetCDF refuses that. */
static int open_with_hints(iot_nc_open_call open, struct iot_file *file, MPI_Comm comm,
                           const char *path, int mode, MPI_Info info, int *ncid)
{
    MPI_Info amended = MPI_INFO_NULL;
    if (file->requested != MPI_INFO_NULL) {
        if (info != MPI_INFO_NULL)
            MPI_Info_dup(info, &amended);
        else
            MPI_Info_create(&amended);
        iot_hints_merge(amended, file->requested);
    }
    iot_mpiio_expect_file(file, 0);
    int rc = open(comm, path, mode, amended != MPI_INFO_NULL ? amended : info, ncid);
    if (rc != NC_NOERR && amended != MPI_INFO_NULL) {
        iot_not_effective(&file->not_effective, "file", NULL, NULL,
                          "PnetCDF refused the amended hints; opened as the application asked");
        rc = open(comm, path, mode, info, ncid);
    }
    iot_mpiio_expect_file(NULL, 0);
    if (amended != MPI_INFO_NULL)
        MPI_Info_free(&amended);
    return rc;
}

/* PnetCDF's own hints (PnetCDF 1.12: nc_header_align_size, nc_var_align_size, ...;
 * pnetcdf_subfiling): read by PnetCDF from the info, unknown to the MPI-IO library. */
static int pnetcdf_reads(const char *hint)
{
    return strncmp(hint, "nc_", 3) == 0 || strncmp(hint, "pnetcdf_", 8) == 0;
}

static const struct iot_hint_reader pnetcdf_hints = {"PnetCDF", pnetcdf_reads};

/* What PnetCDF reports it uses (the MPI file's hints and its own) against what was asked. */
static void read_back(struct iot_file *file, iot_nc_info_call inq_info, int ncid)
{
    struct buf out = {NULL, 0, 0, 0};
    MPI_Info used = MPI_INFO_NULL;
    enum iotwin_fs fs = iot_filesystem(file->name, file->fs_type, sizeof file->fs_type);
    PUT(&out, "{");
    if (inq_info(ncid, &used) == NC_NOERR && used != MPI_INFO_NULL) {
        iot_hints_compare(file, fs, used, &pnetcdf_hints, &out);
        MPI_Info_free(&used);
    } else {
        PUT(&out, "\"hints\": null");
    }
    iot_lustre_readback(file, fs, &out);
    PUT(&out, "}");
    file->effective = buf_take(&out);
    iot_not_applying(file);
}

int iot_pnetcdf_open(iot_nc_open_call open, iot_nc_info_call inq_info, int create,
                     MPI_Comm comm, const char *path, int mode, MPI_Info info, int *ncid)
{
    struct iot_file *file = new_file(create, comm, path);
    iot_lustre_before_open(file, path, lustre_open(create, mode));
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = open_with_hints(open, file, comm, path, mode, info, ncid);
    file->open_s = iot_now() - start;
    file->t_open = epoch;
    if (rc != NC_NOERR || file->fh == MPI_FILE_NULL) {
        iot_file_forget(file);
        return rc;
    }
    remember(*ncid, file);
    iot_mpiio_capture_open(file, epoch, iot_capture_clock());
    read_back(file, inq_info, *ncid);
    return rc;
}

int iot_pnetcdf_begin_indep_data(iot_nc_id_call begin, int ncid)
{
    int i = find(ncid);
    iot_mpiio_expect_file(i >= 0 ? open_files[i].file : NULL, 0);
    int rc = begin(ncid);
    iot_mpiio_expect_file(NULL, 0);
    return rc;
}

int iot_pnetcdf_close(iot_nc_id_call close, int ncid)
{
    struct iot_file *file = take(ncid);
    if (!file)
        return close(ncid);
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = close(ncid);
    iot_mpiio_closed(file, start, epoch);
    return rc;
}
