#define _GNU_SOURCE
#include "readback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "fsinfo.h"
#include "mpi_io.h"

/* --- hints ----------------------------------------------------------------------------------- */

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
static void romio_reason(const struct iot_file *file, enum iot_fs fs, const char *hint,
                         const char *effective, char *reason, size_t len)
{
    if (is_striping_hint(hint) && fs != IOT_FS_LUSTRE)
        snprintf(reason, len, "the file is on %s, not Lustre: ROMIO's generic driver drops "
                 "striping_factor and start_iodevice, and striping_unit only aligns "
                 "collective-buffering file domains", file->fs_type);
    else if (!effective)
        snprintf(reason, len, "dropped by ROMIO: its driver for this file system (%s) does "
                 "not know the hint", file->fs_type);
    else
        snprintf(reason, len, "ROMIO adjusted the value");
}

static void compare_hints(struct iot_file *file, enum iot_fs fs, enum iot_mpi_io io,
                          MPI_Info effective)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], wanted[MPI_MAX_INFO_VAL + 1], got[MPI_MAX_INFO_VAL + 1];
    char key[MPI_MAX_INFO_KEY + 64], reason[512];
    MPI_Info_get_nkeys(file->requested, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(file->requested, i, name);
        MPI_Info_get(file->requested, name, MPI_MAX_INFO_VAL, wanted, &flag);
        MPI_Info_get(effective, name, MPI_MAX_INFO_VAL, got, &flag);
        int same = flag && strcmp(wanted, got) == 0;
        const char *shown = flag ? got : NULL;
        if (io == IOT_MPI_IO_OMPIO) {
            /* OMPIO echoes the hints it ignores: what took effect is not what it reports */
            const char *why = ompio_reason(name, wanted);
            if (why)
                shown = NULL;
            else if (!same)
                why = "OMPIO changed the value";
            else
                continue;
            snprintf(reason, sizeof reason, "%s", why);
        } else if (same && !(is_striping_hint(name) && fs != IOT_FS_LUSTRE)) {
            continue;
        } else {
            romio_reason(file, fs, name, shown, reason, sizeof reason);
        }
        iot_hint_key_path(name, key, sizeof key);
        iot_not_effective(&file->not_effective, key, wanted, shown, reason);
    }
}

static void write_info(FILE *out, MPI_Info info)
{
    int n = 0, flag = 0, k = 0;
    char name[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    MPI_Info_get_nkeys(info, &n);
    fputc('{', out);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(info, i, name);
        MPI_Info_get(info, name, MPI_MAX_INFO_VAL, value, &flag);
        fputs(iot_json_sep(&k), out);
        json_string(out, name);
        fputs(": ", out);
        json_string(out, flag ? value : NULL);
    }
    fputc('}', out);
}

/* --- Open MPI's MCA parameters (config block openmpi) ------------------------------------------ */

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
static void write_mca_settings(FILE *out, enum iot_mpi_io io, const struct iot_mca *mca)
{
    int k = 0;
    fputs(", \"openmpi\": ", out);
    if (io == IOT_MPI_IO_ROMIO) {
        fputs("null", out);
        return;
    }
    fputc('{', out);
    for (int id = 0; id < IOT_NKEYS; id++) {
        if (!IOT_KEYS[id].mca || (id != IOT_K_OPENMPI_IO && !mca->known[id]))
            continue;
        fprintf(out, "%s\"%s\": ", iot_json_sep(&k), IOT_KEYS[id].name);
        json_string(out, id == IOT_K_OPENMPI_IO ? iot_mpi_io_name(io) : mca->text[id]);
    }
    fputc('}', out);
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

/* Hints as ROMIO applied them: from the open MPI file, not from the fapl (H5Pget_fapl_mpio
 * returns the info that was passed in, whatever ROMIO did with it). */
static void readback_hints(struct iot_file *file, enum iot_fs fs, FILE *out)
{
    void *handle = NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (!file->mpio || H5Fget_vfd_handle(file->id, H5P_DEFAULT, &handle) < 0 || !handle
        || MPI_File_get_info(*(MPI_File *)handle, &info) != MPI_SUCCESS) {
        fputs("\"hints\": null", out);
        return;
    }
    enum iot_mpi_io io = iot_mpi_io_component();
    struct iot_mca mca;
    iot_mca_read(&mca, io);
    fputs("\"hints\": ", out);
    write_info(out, info);
    fputs(", ", out);
    iot_write_mpi_io(out, io, &mca);
    write_mca_settings(out, io, &mca);
    if (file->requested != MPI_INFO_NULL)
        compare_hints(file, fs, io, info);
    compare_mca(file, io, &mca);
    MPI_Info_free(&info);
}

static void hints_without_mpio(struct iot_file *file)
{
    int n = 0, flag = 0;
    char name[MPI_MAX_INFO_KEY + 1], wanted[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 64];
    if (file->mpio)
        return;
    for (int id = 0; id < IOT_NKEYS; id++)
        if (IOT_KEYS[id].mca && file->settings.v[id].set) {
            iot_hint_text(id, &file->settings.v[id], wanted, sizeof wanted);
            iot_key_path(id, key, sizeof key);
            iot_not_effective(&file->not_effective, key, wanted, NULL,
                              "the application did not open the file with the MPI-IO driver");
        }
    if (file->requested != MPI_INFO_NULL)
        MPI_Info_get_nkeys(file->requested, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(file->requested, i, name);
        MPI_Info_get(file->requested, name, MPI_MAX_INFO_VAL, wanted, &flag);
        iot_hint_key_path(name, key, sizeof key);
        iot_not_effective(&file->not_effective, key, wanted, NULL,
                          "the application did not open the file with the MPI-IO driver");
    }
}

/* --- HDF5 file properties -------------------------------------------------------------------- */

static void compare_number(struct iot_file *file, int key, long long got)
{
    char wanted[32], effective[32], path[64];
    const struct iot_value *v = &file->settings.v[key];
    if (!v->set || v->i == got)
        return;
    snprintf(wanted, sizeof wanted, "%lld", v->i);
    snprintf(effective, sizeof effective, "%lld", got);
    snprintf(path, sizeof path, "hdf5.%s%s%s",
             IOT_KEYS[key].parent >= 0 ? IOT_KEYS[IOT_KEYS[key].parent].name : "",
             IOT_KEYS[key].parent >= 0 ? "." : "", IOT_KEYS[key].name);
    iot_not_effective(&file->not_effective, path, wanted, effective,
                      file->mpio || IOT_KEYS[key].type != IOT_BOOL ? "HDF5 did not keep the value"
                      : "collective metadata needs the MPI-IO driver");
}

static void readback_hdf5(struct iot_file *file, FILE *out)
{
    hid_t fapl = H5Fget_access_plist(file->id);
    hsize_t threshold = 0, boundary = 0, meta_block = 0;
    size_t sieve = 0;
    hbool_t coll_write = 0, coll_ops = 0;
    H5Pget_alignment(fapl, &threshold, &boundary);
    H5Pget_meta_block_size(fapl, &meta_block);
    H5Pget_sieve_buf_size(fapl, &sieve);
    if (file->mpio) {
        H5Pget_coll_metadata_write(fapl, &coll_write);
        H5Pget_all_coll_metadata_ops(fapl, &coll_ops);
    }
    H5Pclose(fapl);
    fprintf(out, ", \"hdf5\": {\"alignment\": {\"threshold\": %llu, \"boundary\": %llu}, "
            "\"meta_block_size\": %llu, \"sieve_buf_size\": %zu, \"coll_metadata_write\": %s, "
            "\"all_coll_metadata_ops\": %s}", (unsigned long long)threshold,
            (unsigned long long)boundary, (unsigned long long)meta_block, sieve,
            coll_write ? "true" : "false", coll_ops ? "true" : "false");
    compare_number(file, IOT_K_HDF5_ALIGNMENT_THRESHOLD, (long long)threshold);
    compare_number(file, IOT_K_HDF5_ALIGNMENT_BOUNDARY, (long long)boundary);
    compare_number(file, IOT_K_HDF5_META_BLOCK_SIZE, (long long)meta_block);
    compare_number(file, IOT_K_HDF5_SIEVE_BUF_SIZE, (long long)sieve);
    compare_number(file, IOT_K_HDF5_COLL_METADATA_WRITE, coll_write);
    compare_number(file, IOT_K_HDF5_ALL_COLL_METADATA_OPS, coll_ops);
}

static void readback_lustre(struct iot_file *file, enum iot_fs fs, FILE *out)
{
    long long count = 0, size = 0;
    if (fs != IOT_FS_LUSTRE || iot_lustre_layout(file->name, &count, &size) != 0) {
        fputs(", \"lustre\": null", out);
        return;
    }
    fprintf(out, ", \"lustre\": {\"stripe_count\": %lld, \"stripe_size\": %lld}", count, size);
}

void iot_readback_file(struct iot_file *file)
{
    size_t len = 0;
    FILE *out = open_memstream(&file->effective, &len);
    enum iot_fs fs = iot_fs_type(file->name, file->fs_type, sizeof file->fs_type);
    fputc('{', out);
    readback_hints(file, fs, out);
    hints_without_mpio(file);
    readback_hdf5(file, out);
    readback_lustre(file, fs, out);
    fputc('}', out);
    fclose(out);
}

/* --- datasets -------------------------------------------------------------------------------- */

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

static const char *io_mode_name(H5D_mpio_actual_io_mode_t mode)
{
    switch (mode) {
    case H5D_MPIO_NO_COLLECTIVE: return "independent";
    case H5D_MPIO_CHUNK_INDEPENDENT: return "chunk_independent";
    case H5D_MPIO_CHUNK_COLLECTIVE: return "chunk_collective";
    case H5D_MPIO_CHUNK_MIXED: return "chunk_mixed";
    case H5D_MPIO_CONTIGUOUS_COLLECTIVE: return "contiguous_collective";
    }
    return "unknown";
}

static void no_collective_reason(uint32_t cause, char *out, size_t len)
{
    static const struct { uint32_t bit; const char *text; } CAUSES[] = {
        {H5D_MPIO_SET_INDEPENDENT, "the transfer list asks for independent I/O"},
        {H5D_MPIO_DATATYPE_CONVERSION, "datatype conversion"},
        {H5D_MPIO_DATA_TRANSFORMS, "data transforms"},
        {H5D_MPIO_NOT_SIMPLE_OR_SCALAR_DATASPACES, "a dataspace is neither simple nor scalar"},
        {H5D_MPIO_NOT_CONTIGUOUS_OR_CHUNKED_DATASET, "the layout is neither contiguous nor chunked"},
        {H5D_MPIO_PARALLEL_FILTERED_WRITES_DISABLED, "filtered writes cannot be parallel here"},
    };
    size_t n = (size_t)snprintf(out, len, "HDF5 fell back to independent I/O:");
    for (size_t i = 0; i < sizeof CAUSES / sizeof CAUSES[0] && n < len; i++)
        if (cause & CAUSES[i].bit)
            n += (size_t)snprintf(out + n, len - n, " %s;", CAUSES[i].text);
}

static void compare_dataset(struct iot_dataset *d, const char *key, int wanted_index, int got_index,
                            const char *reason)
{
    const struct iot_key *k = key[0] == 'f' ? &IOT_KEYS[IOT_K_DATASET_FILL_TIME]
                                            : &IOT_KEYS[IOT_K_DATASET_ALLOC_TIME];
    char path[64];
    if (wanted_index == got_index)
        return;
    snprintf(path, sizeof path, "dataset.%s", key);
    iot_not_effective(&d->not_effective, path, k->values[wanted_index],
                      got_index >= 0 ? k->values[got_index] : NULL, reason);
}

int iot_read_creation(hid_t dcpl, struct iot_creation *c)
{
    memset(c, 0, sizeof *c);
    c->layout = H5Pget_layout(dcpl);
    c->chunk_rank = c->layout == H5D_CHUNKED ? H5Pget_chunk(dcpl, H5S_MAX_RANK, c->chunk) : -1;
    c->fill = H5D_FILL_TIME_IFSET;
    c->alloc = H5D_ALLOC_TIME_DEFAULT;
    c->fill_value = H5D_FILL_VALUE_DEFAULT;
    H5Pget_fill_time(dcpl, &c->fill);
    H5Pget_alloc_time(dcpl, &c->alloc);
    H5Pfill_value_defined(dcpl, &c->fill_value);
    return c->layout >= 0;
}

static int same_creation(const struct iot_creation *a, const struct iot_creation *b)
{
    return a->layout == b->layout && a->chunk_rank == b->chunk_rank && a->fill == b->fill
        && a->alloc == b->alloc && a->fill_value == b->fill_value
        && (a->chunk_rank <= 0
            || memcmp(a->chunk, b->chunk, (size_t)a->chunk_rank * sizeof *a->chunk) == 0);
}

/* What HDF5 made of the last creation list read back: a dataset of the same file created from
 * a list with the same settings gets the same (reading a dataset's creation list back costs
 * more than creating a small dataset; reading the four settings from the list given is cheap). */
static struct {
    const struct iot_file *file;
    struct iot_creation given, effective;
} last_creation = {NULL, {0}, {0}};

void iot_readback_forget(const struct iot_file *file)
{
    if (!file || file == last_creation.file)
        last_creation.file = NULL;
}

void iot_readback_created(struct iot_dataset *d, const struct iot_file *file, hid_t used_dcpl,
                          const struct iot_creation *settings)
{
    struct iot_creation given;
    if (settings)
        given = *settings;
    else if (!iot_read_creation(used_dcpl == H5P_DEFAULT ? H5P_DATASET_CREATE_DEFAULT : used_dcpl,
                                &given))
        return;
    if (file == last_creation.file && same_creation(&given, &last_creation.given)) {
        d->creation = last_creation.effective;
        d->have_creation = 1;
        return;
    }
    hid_t dcpl = H5Dget_create_plist(d->id);
    d->have_creation = dcpl >= 0 && iot_read_creation(dcpl, &d->creation);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    last_creation.file = d->have_creation ? file : NULL;
    last_creation.given = given;
    last_creation.effective = d->creation;
}

static void readback_creation(struct iot_dataset *d, const struct iot_creation *c,
                              struct iot_text *out)
{
    static const int fill_index[] = {[H5D_FILL_TIME_ALLOC] = 1, [H5D_FILL_TIME_NEVER] = 0,
                                     [H5D_FILL_TIME_IFSET] = 2};
    static const int alloc_index[] = {[H5D_ALLOC_TIME_DEFAULT] = 0, [H5D_ALLOC_TIME_EARLY] = 1,
                                      [H5D_ALLOC_TIME_LATE] = 2, [H5D_ALLOC_TIME_INCR] = 3};
    H5D_layout_t layout = c->layout;
    H5D_fill_time_t fill = c->fill;
    H5D_alloc_time_t alloc = c->alloc;
    iot_text_add(out, "{\"layout\": \"%s\", \"chunk_dims\": ", iot_layout_name(layout));
    int rank = c->chunk_rank;
    for (int i = 0; i < rank; i++)
        iot_text_add(out, "%s%llu", i ? ", " : "[", (unsigned long long)c->chunk[i]);
    iot_text_add(out, "%s, \"fill_time\": \"%s\", \"alloc_time\": \"%s\", "
                 "\"fill_value\": \"%s\", ",
                 rank > 0 ? "]" : "null", IOT_KEYS[IOT_K_DATASET_FILL_TIME].values[fill_index[fill]],
                 IOT_KEYS[IOT_K_DATASET_ALLOC_TIME].values[alloc_index[alloc]],
                 iot_fill_value_name(c->fill_value));
    const struct iot_value *v = d->settings.v;
    if (v[IOT_K_DATASET_FILL_TIME].set)
        compare_dataset(d, "fill_time", (int)v[IOT_K_DATASET_FILL_TIME].i, fill_index[fill],
                        "HDF5 did not keep the value");
    if (v[IOT_K_DATASET_ALLOC_TIME].set)
        compare_dataset(d, "alloc_time", (int)v[IOT_K_DATASET_ALLOC_TIME].i, alloc_index[alloc],
                        "parallel HDF5 allocates dataset space early whatever the property says");
    if ((v[IOT_K_DATASET_CHUNK_DIMS].set || v[IOT_K_DATASET_CHUNK_SIZE].set) && layout != H5D_CHUNKED)
        iot_not_effective(&d->not_effective, v[IOT_K_DATASET_CHUNK_DIMS].set ?
                          "dataset.chunk_dims" : "dataset.chunk_size", "chunked",
                          iot_layout_name(layout), "the dataset was not created chunked");
}

static void readback_transfer(struct iot_dataset *d, const struct iot_file *file,
                              struct iot_text *out)
{
    H5FD_mpio_xfer_t wanted;
    char reason[512];
    if (!d->have_io_mode) {
        iot_text_add(out, ", \"io_mode\": null, \"transfer_mode\": null}");
        return;
    }
    /* transfer_mode in the config's terms: collective unless HDF5 did no collective I/O */
    iot_text_add(out, ", \"io_mode\": \"%s\", \"transfer_mode\": \"%s\"}", io_mode_name(d->io_mode),
                 d->io_mode == H5D_MPIO_NO_COLLECTIVE ? "independent" : "collective");
    if (iot_transfer_mode(&d->settings, &wanted) && wanted == H5FD_MPIO_COLLECTIVE
        && d->io_mode == H5D_MPIO_NO_COLLECTIVE) {
        no_collective_reason(d->no_collective_cause, reason, sizeof reason);
        iot_not_effective(&d->not_effective, "dataset.transfer_mode", "collective",
                          "independent", file->mpio ? reason : "the file is not opened with MPI-IO");
    }
}

void iot_readback_dataset(struct iot_dataset *d, const struct iot_file *file)
{
    struct iot_text out = {NULL, 0, 0};
    haddr_t offset = H5Dget_offset(d->id);
    if (!d->have_creation) {   /* a dataset the application opened */
        hid_t dcpl = H5Dget_create_plist(d->id);
        d->have_creation = dcpl >= 0 && iot_read_creation(dcpl, &d->creation);
        if (dcpl >= 0)
            H5Pclose(dcpl);
    }
    if (d->have_creation)
        readback_creation(d, &d->creation, &out);   /* opens the object */
    else
        iot_text_add(&out, "{");
    unsigned long long storage = (unsigned long long)H5Dget_storage_size(d->id);
    if (offset == HADDR_UNDEF)
        iot_text_add(&out, "\"offset\": null, \"storage_size\": %llu", storage);
    else
        iot_text_add(&out, "\"offset\": %llu, \"storage_size\": %llu",
                     (unsigned long long)offset, storage);
    readback_transfer(d, file, &out);   /* closes it */
    d->effective = out.s;
}
