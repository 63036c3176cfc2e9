#define _GNU_SOURCE
#include "hdf5/readback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/filesystem.h"
#include "core/layer.h"
#include "core/text.h"
#include "hdf5/apply.h"
#include "hdf5/transfer.h"
#include "lustre/lustre.h"
#include "mpiio/hints.h"

/* --- HDF5 file properties -------------------------------------------------------------------- */

/* What the file holds of the access properties, and why a value may differ from the one set. */
struct kept {
    struct iot_access access;
    int known;              /* 0: the file holds an earlier open's values, not known here */
    const char *reason;
};

static void compare_number(struct iot_file *file, int key, long long got, const struct kept *kept)
{
    char wanted[32], effective[32], path[64];
    const struct iot_value *v = &file->settings.v[key];
    if (!v->set || (kept->known && v->i == got))
        return;
    snprintf(wanted, sizeof wanted, "%lld", v->i);
    snprintf(effective, sizeof effective, "%lld", got);
    snprintf(path, sizeof path, "hdf5.%s%s%s",
             IOT_KEYS[key].parent >= 0 ? IOT_KEYS[IOT_KEYS[key].parent].name : "",
             IOT_KEYS[key].parent >= 0 ? "." : "", IOT_KEYS[key].name);
    iot_not_effective(&file->not_effective, path, wanted, kept->known ? effective : NULL,
                      file->collective || IOT_KEYS[key].type != IOT_BOOL ? kept->reason
                      : "collective metadata needs the MPI-IO driver");
}

void iot_read_access(hid_t fapl, int mpio, struct iot_access *a)
{
    memset(a, 0, sizeof *a);
    H5Pget_alignment(fapl, &a->threshold, &a->boundary);
    H5Pget_meta_block_size(fapl, &a->meta_block);
    H5Pget_sieve_buf_size(fapl, &a->sieve);
    H5F_libver_t high;
    if (H5Pget_libver_bounds(fapl, &a->libver_low, &high) < 0)
        a->libver_low = H5F_LIBVER_EARLIEST;
    if (mpio) {
        H5Pget_coll_metadata_write(fapl, &a->coll_write);
        H5Pget_all_coll_metadata_ops(fapl, &a->coll_ops);
    }
}

/* What the file holds: the values of the list HDF5 opened it with (it copies them into the file
 * at open, H5F__new), unless the file was open already in this process: then HDF5 shares the
 * open file and its first open's values stay. No read-back of the file's list: that copies it,
 * for an MPI-IO list with a collective MPI_Comm_dup, once per file. */
static struct kept kept_access(const struct iot_file *file)
{
    struct kept kept = {iot_h5(file)->access, 1, "HDF5 refused the value"};
    if (H5Fget_obj_count(iot_h5(file)->id, H5F_OBJ_FILE) <= 1)
        return kept;
    const struct iot_file *first = iot_file_open_as(file);
    kept.known = first != NULL;
    if (first)
        kept.access = iot_h5(first)->access;
    kept.reason = first ? "the file was open already: HDF5 keeps the access properties of its "
                          "first open"
                        : "the file was open already under another name: HDF5 keeps the "
                          "access properties of its first open, unknown here";
    return kept;
}

/* The file's access properties as the file holds them, compared with the settings. */
static void readback_hdf5(struct iot_file *file, struct buf *out)
{
    struct kept kept = kept_access(file);
    const struct iot_access *a = &kept.access;
    if (kept.known)
        put_format(out, ", \"hdf5\": {\"alignment\": {\"threshold\": %llu, \"boundary\": "
                   "%llu}, \"meta_block_size\": %llu, \"sieve_buf_size\": %zu, "
                   "\"coll_metadata_write\": %s, \"all_coll_metadata_ops\": %s}",
                   (unsigned long long)a->threshold, (unsigned long long)a->boundary,
                   (unsigned long long)a->meta_block, a->sieve,
                   a->coll_write ? "true" : "false", a->coll_ops ? "true" : "false");
    else
        PUT(out, ", \"hdf5\": null");
    compare_number(file, IOT_K_HDF5_ALIGNMENT_THRESHOLD, (long long)a->threshold, &kept);
    compare_number(file, IOT_K_HDF5_ALIGNMENT_BOUNDARY, (long long)a->boundary, &kept);
    compare_number(file, IOT_K_HDF5_META_BLOCK_SIZE, (long long)a->meta_block, &kept);
    compare_number(file, IOT_K_HDF5_SIEVE_BUF_SIZE, (long long)a->sieve, &kept);
    compare_number(file, IOT_K_HDF5_COLL_METADATA_WRITE, a->coll_write, &kept);
    compare_number(file, IOT_K_HDF5_ALL_COLL_METADATA_OPS, a->coll_ops, &kept);
    iot_h5(file)->access = *a;
}

/* The MPI file HDF5 opened (MPI_FILE_NULL: none): as the MPI-IO layer saw it open, else (a
 * file HDF5 had open already) HDF5's own. */
static MPI_File mpi_file_of(const struct iot_file *file)
{
    void *handle = NULL;
    if (!file->collective || file->fh != MPI_FILE_NULL)
        return file->fh;
    if (H5Fget_vfd_handle(iot_h5(file)->id, H5P_DEFAULT, &handle) < 0 || !handle)
        return MPI_FILE_NULL;
    return *(MPI_File *)handle;
}

void iot_readback_file(struct iot_file *file)
{
    struct buf out = {NULL, 0, 0, 0};
    enum iotwin_fs fs = iot_filesystem(file->name, file->fs_type, sizeof file->fs_type);
    PUT(&out, "{");
    iot_hints_readback(file, fs, mpi_file_of(file), &out);
    if (!file->collective)
        iot_hints_without_mpio(file);
    readback_hdf5(file, &out);
    iot_lustre_readback(file, fs, &out);
    PUT(&out, "}");
    file->effective = buf_take(&out);
    iot_not_applying(file);
}

/* --- datasets -------------------------------------------------------------------------------- */

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
    if (dcpl == H5P_DEFAULT)
        dcpl = H5P_DATASET_CREATE_DEFAULT;
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

/* What HDF5 made of the last creation list read back: a dataset created from a list with the
 * same settings in a file whose driver allocates the same way gets the same (the one thing a
 * driver decides: iot_driver_allocates_early). Reading a dataset's creation list back costs
 * more than creating a small dataset; reading the four settings from the list given is cheap. */
static struct {
    int valid, allocates_early;
    struct iot_creation given, effective;
} last_creation;

/* A dataset's creation settings as HDF5 uses them: its own list's, with the alloc time of a
 * driver that allocates at create whatever the list says. */
static int read_dataset_creation(struct iot_dataset *d, const struct iot_file *file)
{
    hid_t dcpl = H5Dget_create_plist(d->id);
    int read = dcpl >= 0 && iot_read_creation(dcpl, &d->creation);
    if (dcpl >= 0)
        iot_list_close(dcpl);
    if (read && iot_driver_allocates_early(file))
        d->creation.alloc = H5D_ALLOC_TIME_EARLY;
    return read;
}

void iot_readback_created(struct iot_dataset *d, const struct iot_file *file, hid_t used_dcpl,
                          const struct iot_creation *settings)
{
    struct iot_creation given;
    if (settings)
        given = *settings;
    else if (!iot_read_creation(used_dcpl, &given))
        return;
    if (last_creation.valid && last_creation.allocates_early == iot_driver_allocates_early(file)
        && same_creation(&given, &last_creation.given)) {
        d->creation = last_creation.effective;
        d->have_creation = 1;
        return;
    }
    d->have_creation = read_dataset_creation(d, file);
    last_creation.valid = d->have_creation;
    last_creation.allocates_early = iot_driver_allocates_early(file);
    last_creation.given = given;
    last_creation.effective = d->creation;
}

static const int FILL_INDEX[] = {[H5D_FILL_TIME_ALLOC] = 1, [H5D_FILL_TIME_NEVER] = 0,
                                 [H5D_FILL_TIME_IFSET] = 2};
static const int ALLOC_INDEX[] = {[H5D_ALLOC_TIME_DEFAULT] = 0, [H5D_ALLOC_TIME_EARLY] = 1,
                                  [H5D_ALLOC_TIME_LATE] = 2, [H5D_ALLOC_TIME_INCR] = 3};

static void compare_creation(struct iot_dataset *d, const struct iot_creation *c)
{
    const struct iot_value *v = d->resolved->settings.v;
    if (v[IOT_K_DATASET_FILL_TIME].set)
        compare_dataset(d, "fill_time", (int)v[IOT_K_DATASET_FILL_TIME].i, FILL_INDEX[c->fill],
                        "HDF5 did not keep the value");
    /* "default" asks HDF5 to choose (by layout and driver): what it chose is what was asked */
    if (v[IOT_K_DATASET_ALLOC_TIME].set
        && v[IOT_K_DATASET_ALLOC_TIME].i != ALLOC_INDEX[H5D_ALLOC_TIME_DEFAULT])
        compare_dataset(d, "alloc_time", (int)v[IOT_K_DATASET_ALLOC_TIME].i, ALLOC_INDEX[c->alloc],
                        "parallel HDF5 allocates dataset space early whatever the property says");
    if ((v[IOT_K_DATASET_CHUNK_DIMS].set || v[IOT_K_DATASET_CHUNK_SIZE].set)
        && c->layout != H5D_CHUNKED)
        iot_not_effective(&d->not_effective, v[IOT_K_DATASET_CHUNK_DIMS].set ?
                          "dataset.chunk_dims" : "dataset.chunk_size", "chunked",
                          iot_layout_name(c->layout), "the dataset was not created chunked");
}

static void compare_transfer(struct iot_dataset *d, const struct iot_file *file)
{
    H5FD_mpio_xfer_t wanted;
    char reason[512];
    if (d->have_io_mode && iot_transfer_mode(&d->resolved->settings, &wanted)
        && wanted == H5FD_MPIO_COLLECTIVE && d->io_mode == H5D_MPIO_NO_COLLECTIVE) {
        no_collective_reason(d->no_collective_cause, reason, sizeof reason);
        iot_not_effective(&d->not_effective, "dataset.transfer_mode", "collective",
                          "independent",
                          file->collective ? reason : "the file is not opened with MPI-IO");
    }
}

/* Reads the figures back and compares them with the settings; the text is written only in the
 * report (iot_write_dataset_effective), on the rank that writes it. */
void iot_readback_dataset(struct iot_dataset *d, const struct iot_file *file)
{
    d->offset = H5Dget_offset(d->id);
    if (!d->have_creation && iot_sets_dcpl(&d->resolved->settings))   /* opened, not created */
        d->have_creation = read_dataset_creation(d, file);
    if (d->have_creation)
        compare_creation(d, &d->creation);
    d->storage_size = H5Dget_storage_size(d->id);
    compare_transfer(d, file);
    d->read_back = 1;
}

static void write_creation(struct buf *out, const struct iot_creation *c)
{
    PUT(out, "\"layout\": \"");
    put(out, iot_layout_name(c->layout));
    PUT(out, "\", \"chunk_dims\": ");
    if (c->chunk_rank > 0)
        put_hsizes(out, c->chunk, c->chunk_rank, 0);
    else
        PUT(out, "null");
    PUT(out, ", \"fill_time\": \"");
    put(out, IOT_KEYS[IOT_K_DATASET_FILL_TIME].values[FILL_INDEX[c->fill]]);
    PUT(out, "\", \"alloc_time\": \"");
    put(out, IOT_KEYS[IOT_K_DATASET_ALLOC_TIME].values[ALLOC_INDEX[c->alloc]]);
    PUT(out, "\", \"fill_value\": \"");
    put(out, iot_fill_value_name(c->fill_value));
    PUT(out, "\", ");
}

void iot_write_dataset_effective(struct buf *out, const struct iot_dataset *d)
{
    if (!d->read_back) {
        PUT(out, "null");
        return;
    }
    PUT(out, "{");
    if (d->have_creation)
        write_creation(out, &d->creation);
    PUT(out, "\"offset\": ");
    if (d->offset == HADDR_UNDEF)
        PUT(out, "null");
    else
        put_int(out, (long long)d->offset);
    PUT(out, ", \"storage_size\": ");
    put_int(out, (long long)d->storage_size);
    if (!d->have_io_mode) {
        PUT(out, ", \"io_mode\": null, \"transfer_mode\": null}");
        return;
    }
    /* transfer_mode in the config's terms: collective unless HDF5 did no collective I/O */
    PUT(out, ", \"io_mode\": \"");
    put(out, io_mode_name(d->io_mode));
    put(out, d->io_mode == H5D_MPIO_NO_COLLECTIVE ? "\", \"transfer_mode\": \"independent\"}"
                                                  : "\", \"transfer_mode\": \"collective\"}");
}
