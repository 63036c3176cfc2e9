#define _GNU_SOURCE
#include "mpiio/file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "core/filesystem.h"
#include "core/text.h"
#include "core/comms.h"
#include "core/layer.h"
#include "core/readbacks.h"
#include "core/runtime.h"
#include "lustre/lustre.h"
#include "mpiio/capture.h"
#include "mpiio/hints.h"
#include "mpiio/layer.h"
#include "mpiio/requests.h"

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

/* The real open with the requested hints merged in; as the program asked if that fails
 * (then *refused is set, when given). */
static int open_with_hints(iot_open_call open, struct iot_file *file, MPI_Info requested,
                           MPI_Comm comm, const char *name, const char *real_name, int amode,
                           MPI_Info info, MPI_File *fh, int *refused)
{
    MPI_Info amended = amended_info(info, requested);
    int rc = open(comm, real_name, amode, amended != MPI_INFO_NULL ? amended : info, fh);
    if (rc != MPI_SUCCESS && (amended != MPI_INFO_NULL || real_name != name)) {
        iot_not_effective(&file->not_effective, "file", NULL, NULL,
                          "MPI_File_open refused the amended hints or name; opened as the "
                          "application asked");
        rc = open(comm, name, amode, info, fh);
        if (refused)
            *refused = 1;
    }
    if (amended != MPI_INFO_NULL)
        MPI_Info_free(&amended);
    return rc;
}

void iot_mpiio_opened_on(struct iot_file *file, MPI_Comm comm)
{
    int needs_group = iot_rt.run.report_path && !file->group;
    int needs_comm = file->comm == MPI_COMM_NULL
                     && (iot_capture_enabled() || iot_lustre_striping_set(file));
    if (needs_group || needs_comm)
        iot_group_and_comm(comm, needs_group ? &file->group : NULL,
                           needs_comm ? &file->comm : NULL);
}

/* The layer's file opened inside its open call, or again by this process alone once open
 * (PnetCDF's independent data mode: its writes are the same file's). */
static int open_for_layer_above(iot_open_call open, struct iot_file *file, MPI_Comm comm,
                         const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    iot_mpiio_opened_on(file, comm);
    int rc = open_with_hints(open, file, expected.hints ? file->requested : MPI_INFO_NULL,
                             comm, name, name, amode, info, fh, NULL);
    if (rc == MPI_SUCCESS && file->fh == MPI_FILE_NULL)
        file->fh = *fh;
    else if (rc == MPI_SUCCESS)
        file->fh_alone = *fh;
    return rc;
}

/* --- a file of the program's own ----------------------------------------------------------- */

/* What decides a file's read-back off Lustre, as text (0: nothing, every such file is read
 * back): its file system and the driver prefix of its name ("ufs:", "nfs:", which choose
 * ROMIO's driver), its group of processes (core/comms.h), the access
 * mode, the config's blocks its settings come from (the same labels, the same settings: the
 * same hints asked for, the same bglockless prefix), whether the open took them and the
 * program's own hints. On Lustre ROMIO reads each file's own layout back into its hints. */
static int readback_key(const struct iot_file *file, enum iotwin_fs fs, int amode,
                        MPI_Info info, int refused, struct buf *key)
{
    if (fs == IOTWIN_FS_LUSTRE || strlen(file->matched) + 1 >= sizeof file->matched)
        return 0;
    static const char hex[] = "0123456789abcdef";
    const unsigned char *group = (const unsigned char *)&file->group;
    size_t prefix = strcspn(file->name, ":/");
    put(key, file->fs_type);
    PUT(key, "|");
    if (file->name[prefix] == ':')
        put_bytes(key, file->name, prefix + 1);
    PUT(key, "|");
    for (size_t i = 0; i < sizeof file->group; i++) {
        put_bytes(key, &hex[group[i] >> 4], 1);
        put_bytes(key, &hex[group[i] & 15], 1);
    }
    PUT(key, "|");
    put_int(key, amode);
    put(key, refused ? "|refused|" : "|");
    put(key, file->matched);
    PUT(key, "|");
    iot_write_info(key, info);
    return !key->failed;
}

static void read_back(struct iot_file *file, enum iotwin_fs fs)
{
    struct buf out = {NULL, 0, 0, 0};
    PUT(&out, "{");
    iot_hints_readback(file, fs, file->fh, &out);
    iot_lustre_readback(file, fs, &out);
    PUT(&out, "}");
    file->effective = buf_take(&out);
    iot_not_applying(file);
}

/* The file's read-back, or the one of the last file opened the same way (core/readbacks.h). */
static void read_back_once(struct iot_file *file, int amode, MPI_Info info, int refused)
{
    struct buf key = {NULL, 0, 0, 0};
    enum iotwin_fs fs = iot_filesystem(file->name, file->fs_type, sizeof file->fs_type);
    int keyed = readback_key(file, fs, amode, info, refused, &key);
    if (!keyed || !iot_readback_recall(file, key.s)) {
        struct iot_list_mark before = iot_list_mark(&file->not_effective);
        read_back(file, fs);
        if (keyed)
            iot_readback_remember(file, key.s, before);
    }
    free(key.s);
}

static struct iot_file *new_file(MPI_Comm comm, const char *name, int amode)
{
    struct iot_file *file = iot_file_new(&iot_mpiio_layer, name,
                                         amode & MPI_MODE_CREATE ? "create" : "open");
    iot_settings_for(&file->settings, file->matched, name, NULL);
    file->requested = iot_hints_requested(file);
    iot_mpiio_opened_on(file, comm);
    iot_hints_record_applied(file);
    return file;
}

int iot_mpiio_open(iot_open_call open, MPI_Comm comm, const char *name, int amode,
                   MPI_Info info, MPI_File *fh)
{
    char prefixed[4096];
    if (expected.file)
        return open_for_layer_above(open, expected.file, comm, name, amode, info, fh);
    if (iot_nothing_to_do())   /* the other hooks find no record of the file: none either */
        return open(comm, name, amode, info, fh);
    struct iot_file *file = new_file(comm, name, amode);
    const char *real_name = iot_bglockless_name(file, name, prefixed, sizeof prefixed);
    iot_lustre_before_open(file, name, !(amode & MPI_MODE_CREATE) ? IOT_OPENING
                                       : amode & MPI_MODE_EXCL ? IOT_CREATE_EXCLUSIVE
                                                               : IOT_CREATE_IF_ABSENT);
    double start = iot_now(), epoch = iot_capture_clock();
    int refused = 0;
    int rc = open_with_hints(open, file, file->requested, comm, name, real_name, amode, info, fh,
                             &refused);
    file->open_s = iot_now() - start;
    file->t_open = epoch;
    if (rc != MPI_SUCCESS) {
        iot_file_forget(file);
        return rc;
    }
    file->fh = *fh;
    iot_mpiio_capture_open(file, epoch, iot_capture_clock());
    if (iot_rt.run.report_path)
        read_back_once(file, amode, info, refused);
    return rc;
}

int iot_mpiio_close(iot_close_call close, struct iot_file *file, MPI_File *fh)
{
    if (*fh != file->fh) {   /* its handle of this process alone: the file stays open */
        file->fh_alone = MPI_FILE_NULL;
        return close(fh);
    }
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = close(fh);
    iot_mpiio_closed(file, start, epoch);
    return rc;
}

void iot_mpiio_closed(struct iot_file *file, double start, double epoch)
{
    file->close_s = iot_now() - start;
    file->t_close = iot_capture_clock();
    iot_mpiio_capture_close(file, epoch, file->t_close);
    iot_mpiio_requests_of_file_forget(file);   /* its record may outlive it: held for the report */
    iot_report_close(file, &iot_rt.run);
}
