#define _GNU_SOURCE
#include "mpiio/file.h"

#include <stdio.h>
#include <stdlib.h>

#include "capture/capture.h"
#include "core/text.h"
#include "core/comms.h"
#include "core/layer.h"
#include "core/runtime.h"
#include "lustre/lustre.h"
#include "mpiio/capture.h"
#include "mpiio/hints.h"
#include "mpiio/layer.h"

static struct {
    struct iot_file *file;
    int hints;
} expected;

void iot_mpiio_expect_file(struct iot_file *file, int hints)
{
    expected.file = file;
    expected.hints = hints;
}

int iot_mpiio_expecting_file(void)
{
    return expected.file != NULL;
}

/* A copy of the program's info with the requested hints merged in (ours win); MPI_INFO_NULL
 * when none are requested. */
static MPI_Info amended_info(MPI_Info info, MPI_Info requested)
{
    MPI_Info amended = MPI_INFO_NULL;
    if (requested == MPI_INFO_NULL)
        return MPI_INFO_NULL;
    if (info != MPI_INFO_NULL)
        MPI_Info_dup(info, &amended);
    else
        MPI_Info_create(&amended);
    iot_hints_merge(amended, requested);
    return amended;
}

/* The real open with the requested hints merged in; as the program asked if that fails. */
static int open_with_hints(iot_open_call open, struct iot_file *file, MPI_Info requested,
                           MPI_Comm comm, const char *name, const char *real_name, int amode,
                           MPI_Info info, MPI_File *fh)
{
    MPI_Info amended = amended_info(info, requested);
    int rc = open(comm, real_name, amode, amended != MPI_INFO_NULL ? amended : info, fh);
    if (rc != MPI_SUCCESS && (amended != MPI_INFO_NULL || real_name != name)) {
        iot_not_effective(&file->not_effective, "file", NULL, NULL,
                          "MPI_File_open refused the amended hints or name; opened as the "
                          "application asked");
        rc = open(comm, name, amode, info, fh);
    }
    if (amended != MPI_INFO_NULL)
        MPI_Info_free(&amended);
    return rc;
}

static int open_for_layer_above(iot_open_call open, struct iot_file *file, MPI_Comm comm,
                         const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    if (file->comm == MPI_COMM_NULL)
        file->comm = iot_comm_for(comm);
    int rc = open_with_hints(open, file, expected.hints ? file->requested : MPI_INFO_NULL,
                             comm, name, name, amode, info, fh);
    if (rc == MPI_SUCCESS)
        file->fh = *fh;
    return rc;
}

/* --- a file of the program's own ----------------------------------------------------------- */

static void read_back(struct iot_file *file)
{
    struct buf out = {NULL, 0, 0, 0};
    enum iotwin_fs fs = iotwin_filesystem(file->name, file->fs_type, sizeof file->fs_type);
    PUT(&out, "{");
    iot_hints_readback(file, fs, file->fh, &out);
    iot_lustre_readback(file, fs, &out);
    PUT(&out, "}");
    file->effective = buf_take(&out);
    iot_not_applying(file);
}

static struct iot_file *new_file(MPI_Comm comm, const char *name, int amode)
{
    struct iot_file *file = iot_file_new(&iot_mpiio_layer, name,
                                         amode & MPI_MODE_CREATE ? "create" : "open");
    iot_settings_for(&file->settings, file->matched, name, NULL);
    file->requested = iot_hints_requested(file);
    file->comm = iot_comm_for(comm);
    iot_hints_record_applied(file);
    return file;
}

int iot_mpiio_open(iot_open_call open, MPI_Comm comm, const char *name, int amode,
                   MPI_Info info, MPI_File *fh)
{
    char prefixed[4096];
    if (expected.file)
        return open_for_layer_above(open, expected.file, comm, name, amode, info, fh);
    struct iot_file *file = new_file(comm, name, amode);
    const char *real_name = iot_bglockless_name(file, name, prefixed, sizeof prefixed);
    iot_lustre_before_open(file, name, !(amode & MPI_MODE_CREATE) ? IOT_OPENING
                                       : amode & MPI_MODE_EXCL ? IOT_CREATE_EXCLUSIVE
                                                               : IOT_CREATE_IF_ABSENT);
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = open_with_hints(open, file, file->requested, comm, name, real_name, amode, info, fh);
    file->open_s = iot_now() - start;
    file->t_open = epoch;
    if (rc != MPI_SUCCESS) {
        iot_file_forget(file);
        return rc;
    }
    file->fh = *fh;
    iot_mpiio_capture_open(file, epoch, iot_capture_clock());
    read_back(file);
    return rc;
}

int iot_mpiio_close(iot_close_call close, struct iot_file *file, MPI_File *fh)
{
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = close(fh);
    file->close_s = iot_now() - start;
    file->t_close = iot_capture_clock();
    iot_mpiio_capture_close(file, epoch, file->t_close);
    iot_report_close(file, &iot_rt.run);
    return rc;
}
