#define _GNU_SOURCE
#include "mpiio/hints.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "core/keys.h"
#include "core/layer.h"
#include "core/runtime.h"
#include "mpiio/component.h"

/* --- applying ----------------------------------------------------------------------------- */

MPI_Info iot_hints_requested(const struct iot_file *file)
{
    MPI_Info info = MPI_INFO_NULL;
    char text[256];
    for (int id = 0; id < IOT_NKEYS; id++) {
        const struct iot_value *value = &file->settings.v[id];
        int block = IOT_KEYS[id].block;
        if (!value->set || !(IOT_KEYS[id].hint || id == IOT_K_MPIIO_HINTS) || block < 0
            || !((1u << block) & file->layer->blocks))
            continue;
        if (info == MPI_INFO_NULL)
            MPI_Info_create(&info);
        if (id == IOT_K_MPIIO_HINTS) {
            for (int i = 0; i < value->nmap; i++)
                MPI_Info_set(info, value->names[i], value->values[i]);
            continue;
        }
        iot_hint_text(id, value, text, sizeof text);
        MPI_Info_set(info, IOT_KEYS[id].hint, text);
    }
    return info;
}

void iot_write_info(struct buf *out, MPI_Info info)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    if (info != MPI_INFO_NULL)
        MPI_Info_get_nkeys(info, &n);
    PUT(out, "{");
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(info, i, name);
        MPI_Info_get(info, name, MPI_MAX_INFO_VAL, value, &flag);
        if (i)
            PUT(out, ", ");
        put_string(out, name);
        PUT(out, ": ");
        put_string(out, flag ? value : NULL);
    }
    PUT(out, "}");
}

void iot_hints_merge(MPI_Info into, MPI_Info from)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    MPI_Info_get_nkeys(from, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(from, i, name);
        MPI_Info_get(from, name, MPI_MAX_INFO_VAL, value, &flag);
        MPI_Info_set(into, name, value);
    }
}

void iot_write_applied_mca(struct buf *applied, const struct iot_settings *s)
{
    char text[64];
    int n = 0;
    PUT(applied, ", \"openmpi\": {");
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].mca && s->v[id].set) {
            iot_hint_text(id, &s->v[id], text, sizeof text);
            put(applied, iot_json_sep(&n));
            put_string(applied, IOT_KEYS[id].name);
            PUT(applied, ": ");
            put_string(applied, text);
        }
    PUT(applied, "}");
}

const char *iot_bglockless_name(struct iot_file *file, const char *name, char *out, size_t len)
{
    const struct iot_value *v = &file->settings.v[IOT_K_MPIIO_BGLOCKLESS];
    if (!v->set || !v->i)
        return name;
    if (!dlsym(RTLD_DEFAULT, "ADIO_BGLOCKLESS_operations")) {
        iot_not_effective(&file->not_effective, "mpiio.bglockless", "true", NULL,
                          "this MPI's ROMIO has no bglockless driver: the file name is left alone");
        return name;
    }
    snprintf(out, len, "bglockless:%s", name);
    return out;
}

/* --- reading back: hints ------------------------------------------------------------------ */

static int is_striping_hint(const char *hint)
{
    return strcmp(hint, "striping_factor") == 0 || strcmp(hint, "striping_unit") == 0
        || strcmp(hint, "start_iodevice") == 0 || strncmp(hint, "romio_lustre_", 13) == 0;
}

/* Why OMPIO does not do what `hint`=`value` asks (it ignores or misreads it); NULL if it does. */
static const char *ompio_reason(const char *hint, const char *value)
{
    const char *misread = iot_ompio_misreads(hint, value);
    return misread ? misread : iot_ompio_ignores(hint);
}

/* Why ROMIO did not keep a hint. */
static void romio_reason(const struct iot_file *file, enum iotwin_fs fs, const char *hint,
                         const char *effective, char *reason, size_t len)
{
    if (is_striping_hint(hint) && fs != IOTWIN_FS_LUSTRE)
        snprintf(reason, len, "the file is on %s, not Lustre: ROMIO's generic driver drops "
                 "striping_factor and start_iodevice, and striping_unit only aligns "
                 "collective-buffering file domains", file->fs_type);
    else if (!effective)
        snprintf(reason, len, "dropped by ROMIO: its driver for this file system (%s) does "
                 "not know the hint", file->fs_type);
    else
        snprintf(reason, len, "ROMIO adjusted the value");
}

/* Why a requested hint with read-back `got` (NULL: absent) did not take effect, into reason;
 * 0 if it did. `shown` receives what to report as effective. */
static int hint_reason(const struct iot_file *file, enum iotwin_fs fs, enum iot_mpi_io io,
                       const struct iot_hint_reader *above, const char *name,
                       const char *wanted, const char *got, const char **shown, char *reason,
                       size_t len)
{
    int same = got && strcmp(wanted, got) == 0;
    *shown = got;
    if (above && above->reads(name)) {   /* the library's own: what it read back is what it uses */
        if (same)
            return 0;
        snprintf(reason, len, "%s %s", above->name, got ? "changed the value" : "dropped the hint");
        return 1;
    }
    if (io == IOT_MPI_IO_OMPIO) {
        /* OMPIO echoes the hints it ignores: what took effect is not what it reports */
        const char *why = ompio_reason(name, wanted);
        if (why)
            *shown = NULL;
        else if (!same)
            why = "OMPIO changed the value";
        else
            return 0;
        snprintf(reason, len, "%s", why);
        return 1;
    }
    if (same && !(is_striping_hint(name) && fs != IOTWIN_FS_LUSTRE))
        return 0;
    romio_reason(file, fs, name, got, reason, len);
    return 1;
}

static void compare_hints(struct iot_file *file, enum iotwin_fs fs, enum iot_mpi_io io,
                          const struct iot_hint_reader *above, MPI_Info effective)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], wanted[MPI_MAX_INFO_VAL + 1], got[MPI_MAX_INFO_VAL + 1];
    char key[MPI_MAX_INFO_KEY + 64], reason[512];
    const char *shown = NULL;
    MPI_Info_get_nkeys(file->requested, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(file->requested, i, name);
        MPI_Info_get(file->requested, name, MPI_MAX_INFO_VAL, wanted, &flag);
        MPI_Info_get(effective, name, MPI_MAX_INFO_VAL, got, &flag);
        if (!hint_reason(file, fs, io, above, name, wanted, flag ? got : NULL, &shown, reason,
                         sizeof reason))
            continue;
        iot_hint_key_path(name, key, sizeof key);
        iot_not_effective(&file->not_effective, key, wanted, shown, reason);
    }
}

/* --- reading back: Open MPI's MCA parameters (config block openmpi) ------------------------ */

static int requested_hint(const struct iot_file *file, const char *hint)
{
    int flag = 0;
    char value[MPI_MAX_INFO_VAL + 1];
    if (file->requested != MPI_INFO_NULL)
        MPI_Info_get(file->requested, hint, MPI_MAX_INFO_VAL, value, &flag);
    return flag;
}

/* Which of OMPIO's settings its file hints override (v4.1.4: cb_nodes at set_view in
 * common_ompio_file_view.c, except under dynamic_gen2, which takes the MCA value; cb_buffer_size
 * at open in common_ompio_file_open.c), and what the individual component leaves unused. */
static const char *ompio_overridden(int id, const struct iot_file *file,
                                    const struct iot_mca *mca)
{
    const char *fcoll = mca->text[IOT_K_OPENMPI_FCOLL];
    int aggregation = id == IOT_K_OPENMPI_NUM_AGGREGATORS || id == IOT_K_OPENMPI_BYTES_PER_AGG;
    if (aggregation && strcmp(fcoll, "individual") == 0)
        return "the fcoll component is individual: every rank writes its own data, nothing is "
               "aggregated";
    if (id == IOT_K_OPENMPI_NUM_AGGREGATORS && strcmp(fcoll, "dynamic_gen2") != 0
        && requested_hint(file, "cb_nodes"))
        return "the file's cb_nodes hint (mpiio.cb_nodes) sets OMPIO's aggregator count "
               "instead";
    if (id == IOT_K_OPENMPI_BYTES_PER_AGG && requested_hint(file, "cb_buffer_size"))
        return "the file's cb_buffer_size hint (mpiio.cb_buffer_size) sets OMPIO's collective "
               "buffer instead";
    return NULL;
}

/* Why the requested value of MCA key `id` did not take effect (NULL: it did); what did, in
 * `effective` ("" for nothing). */
static const char *mca_reason(int id, const char *wanted, const struct iot_file *file,
                              enum iot_mpi_io io, const struct iot_mca *mca, char *effective,
                              size_t len)
{
    effective[0] = '\0';
    if (io == IOT_MPI_IO_ROMIO)
        return "the program runs MPICH: Open MPI's MCA parameters do not apply";
    if (id == IOT_K_OPENMPI_IO) {
        snprintf(effective, len, "%s", iot_mpi_io_name(io));
        return strcmp(wanted, effective) == 0 ? NULL
            : "Open MPI chose another io component: OMPI_MCA_io was not in the program's "
              "environment (iotwin's executors set it from the config)";
    }
    if (io == IOT_MPI_IO_ROMIO321)
        return "the io component is romio321, Open MPI's ROMIO: OMPIO's parameters do not apply";
    if (!mca->known[id])
        return "this Open MPI has no such MCA parameter";
    snprintf(effective, len, "%s", mca->text[id]);
    if (strcmp(wanted, effective) != 0)
        return "MPI_Init read another value: OMPI_MCA_<name> was not in the program's "
               "environment (iotwin's executors set it from the config)";
    const char *overridden = ompio_overridden(id, file, mca);
    if (overridden)
        effective[0] = '\0';
    return overridden;
}

/* `, "openmpi": {...}`: the config's MCA keys as the process took them (io: the component
 * that handles the file), in the config's names; null under MPICH. */
static void write_mca_settings(struct buf *out, enum iot_mpi_io io, const struct iot_mca *mca)
{
    int k = 0;
    PUT(out, ", \"openmpi\": ");
    if (io == IOT_MPI_IO_ROMIO) {
        PUT(out, "null");
        return;
    }
    PUT(out, "{");
    for (int id = 0; id < IOT_NKEYS; id++) {
        if (!IOT_KEYS[id].mca || (id != IOT_K_OPENMPI_IO && !mca->known[id]))
            continue;
        put(out, iot_json_sep(&k));
        put_string(out, IOT_KEYS[id].name);
        PUT(out, ": ");
        put_string(out, id == IOT_K_OPENMPI_IO ? iot_mpi_io_name(io) : mca->text[id]);
    }
    PUT(out, "}");
}

static void compare_mca(struct iot_file *file, enum iot_mpi_io io, const struct iot_mca *mca)
{
    char wanted[64], effective[64], key[64];
    for (int id = 0; id < IOT_NKEYS; id++) {
        const struct iot_value *v = &file->settings.v[id];
        if (!IOT_KEYS[id].mca || !v->set)
            continue;
        iot_hint_text(id, v, wanted, sizeof wanted);
        const char *reason = mca_reason(id, wanted, file, io, mca, effective, sizeof effective);
        if (!reason)
            continue;
        iot_key_path(id, key, sizeof key);
        iot_not_effective(&file->not_effective, key, wanted, effective[0] ? effective : NULL,
                          reason);
    }
}

/* Hints as ROMIO applied them: from the open MPI file, not from what was passed in. */
void iot_hints_readback(struct iot_file *file, enum iotwin_fs fs, MPI_File fh, struct buf *out)
{
    MPI_Info info = MPI_INFO_NULL;
    if (fh == MPI_FILE_NULL || MPI_File_get_info(fh, &info) != MPI_SUCCESS) {
        PUT(out, "\"hints\": null");
        return;
    }
    iot_hints_compare(file, fs, info, NULL, out);
    MPI_Info_free(&info);
}

void iot_hints_compare(struct iot_file *file, enum iotwin_fs fs, MPI_Info info,
                       const struct iot_hint_reader *above, struct buf *out)
{
    enum iot_mpi_io io = iot_mpi_io_component();
    struct iot_mca mca;
    iot_mca_read(&mca, io);
    PUT(out, "\"hints\": ");
    iot_write_info(out, info);
    PUT(out, ", ");
    iot_write_mpi_io(out, io, &mca);
    write_mca_settings(out, io, &mca);
    if (file->requested != MPI_INFO_NULL)
        compare_hints(file, fs, io, above, info);
    compare_mca(file, io, &mca);
}

void iot_hints_record_applied(struct iot_file *file)
{
    if (!iot_rt.run.report_path)   /* what was applied: the report's alone */
        return;
    struct buf applied = {NULL, 0, 0, 0};
    PUT(&applied, "{\"hints\": ");
    iot_write_info(&applied, file->requested);
    iot_write_applied_mca(&applied, &file->settings);
    PUT(&applied, "}");
    file->applied = buf_take(&applied);
}

void iot_hints_without_mpio(struct iot_file *file)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], wanted[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 64];
    static const char *reason = "the application did not open the file with the MPI-IO driver";
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].mca && file->settings.v[id].set) {
            iot_hint_text(id, &file->settings.v[id], wanted, sizeof wanted);
            iot_key_path(id, key, sizeof key);
            iot_not_effective(&file->not_effective, key, wanted, NULL, reason);
        }
    if (file->requested != MPI_INFO_NULL)
        MPI_Info_get_nkeys(file->requested, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(file->requested, i, name);
        MPI_Info_get(file->requested, name, MPI_MAX_INFO_VAL, wanted, &flag);
        iot_hint_key_path(name, key, sizeof key);
        iot_not_effective(&file->not_effective, key, wanted, NULL, reason);
    }
}
