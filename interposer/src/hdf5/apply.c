#define _GNU_SOURCE
#include "hdf5/apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "hdf5/readback.h"
#include "hdf5/transfer.h"
#include "mpiio/hints.h"

/* --- file access ----------------------------------------------------------------------------- */

/* Sets `wanted` on the list, member by member; what took goes to *took and to `applied`. */
static void set_access(hid_t fapl, const struct iot_settings *s, int mpio,
                       const struct iot_access *wanted, struct iot_access *took,
                       struct buf *applied)
{
    const struct iot_value *v = s->v;
    int coll_write = mpio && v[IOT_K_HDF5_COLL_METADATA_WRITE].set;
    int coll_ops = mpio && v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].set;
    int n = 0;
    PUT(applied, ", \"hdf5\": {");
    if (v[IOT_K_HDF5_ALIGNMENT].set && H5Pset_alignment(fapl, wanted->threshold, wanted->boundary) >= 0) {
        took->threshold = wanted->threshold;
        took->boundary = wanted->boundary;
        put_format(applied, "%s\"alignment\": {\"threshold\": %llu, \"boundary\": %llu}",
                   iot_json_sep(&n), (unsigned long long)took->threshold,
                   (unsigned long long)took->boundary);
    }
    if (v[IOT_K_HDF5_META_BLOCK_SIZE].set && H5Pset_meta_block_size(fapl, wanted->meta_block) >= 0) {
        took->meta_block = wanted->meta_block;
        put_format(applied, "%s\"meta_block_size\": %llu", iot_json_sep(&n),
                   (unsigned long long)took->meta_block);
    }
    if (v[IOT_K_HDF5_SIEVE_BUF_SIZE].set && H5Pset_sieve_buf_size(fapl, wanted->sieve) >= 0) {
        took->sieve = wanted->sieve;
        put_format(applied, "%s\"sieve_buf_size\": %zu", iot_json_sep(&n), took->sieve);
    }
    if (coll_write && H5Pset_coll_metadata_write(fapl, wanted->coll_write) >= 0) {
        took->coll_write = wanted->coll_write;
        put_format(applied, "%s\"coll_metadata_write\": %s", iot_json_sep(&n),
                   took->coll_write ? "true" : "false");
    }
    if (coll_ops && H5Pset_all_coll_metadata_ops(fapl, wanted->coll_ops) >= 0) {
        took->coll_ops = wanted->coll_ops;
        put_format(applied, "%s\"all_coll_metadata_ops\": %s", iot_json_sep(&n),
                   took->coll_ops ? "true" : "false");
    }
    PUT(applied, "}");
}

/* The list's values with the settings' in their place. */
static struct iot_access wanted_access(const struct iot_settings *s, const struct iot_access *own)
{
    const struct iot_value *v = s->v;
    struct iot_access w = *own;
    if (v[IOT_K_HDF5_ALIGNMENT_THRESHOLD].set)
        w.threshold = (hsize_t)v[IOT_K_HDF5_ALIGNMENT_THRESHOLD].i;
    if (v[IOT_K_HDF5_ALIGNMENT_BOUNDARY].set)
        w.boundary = (hsize_t)v[IOT_K_HDF5_ALIGNMENT_BOUNDARY].i;
    if (v[IOT_K_HDF5_META_BLOCK_SIZE].set)
        w.meta_block = (hsize_t)v[IOT_K_HDF5_META_BLOCK_SIZE].i;
    if (v[IOT_K_HDF5_SIEVE_BUF_SIZE].set)
        w.sieve = (size_t)v[IOT_K_HDF5_SIEVE_BUF_SIZE].i;
    if (v[IOT_K_HDF5_COLL_METADATA_WRITE].set)
        w.coll_write = (hbool_t)v[IOT_K_HDF5_COLL_METADATA_WRITE].i;
    if (v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].set)
        w.coll_ops = (hbool_t)v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].i;
    return w;
}

/* Whether the settings set any HDF5 file access property. */
static int sets_fapl(const struct iot_settings *s)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        if (s->v[id].set && IOT_KEYS[id].block >= 0
            && (1u << IOT_KEYS[id].block) == IOT_B_HDF5)
            return 1;
    return 0;
}

/* HDF5 shares a file opened again only with the same driver (H5FD_cmp compares the driver
 * first): the list's driver is the file's. */
static const char *driver_name(hid_t driver)
{
    return driver == H5FD_MPIO ? "mpio" : driver == H5FD_SEC2 ? "sec2"
         : driver == H5FD_CORE ? "core" : "other";
}

void iot_apply_fapl(struct iot_file *file, hid_t given, struct iot_fapl *fapl)
{
    struct buf applied = {NULL, 0, 0, 0};
    hid_t driver = H5Pget_driver(given);
    file->collective = driver == H5FD_MPIO;
    file->driver = driver_name(driver);
    file->requested = iot_hints_requested(file);
    iot_read_access(given, file->collective, &fapl->own);
    iot_h5(file)->access = fapl->own;
    fapl->in_place = given != H5P_FILE_ACCESS_DEFAULT;
    fapl->id = !sets_fapl(&file->settings) ? -1 : fapl->in_place ? given : H5Pcopy(given);
    PUT(&applied, "{\"hints\": ");
    iot_write_info(&applied, file->requested);
    if (fapl->id >= 0) {
        struct iot_access wanted = wanted_access(&file->settings, &fapl->own);
        set_access(fapl->id, &file->settings, file->collective, &wanted, &iot_h5(file)->access,
                   &applied);
    } else {
        PUT(&applied, ", \"hdf5\": {}");
    }
    iot_write_applied_mca(&applied, &file->settings);
    PUT(&applied, "}");
    file->applied = buf_take(&applied);
}

void iot_fapl_restore(struct iot_fapl *fapl, const struct iot_access *set)
{
    const struct iot_access *own = &fapl->own;
    if (fapl->id < 0)
        return;
    if (!fapl->in_place) {
        iot_list_close(fapl->id);
        fapl->id = -1;
        return;
    }
    if (set->threshold != own->threshold || set->boundary != own->boundary)
        H5Pset_alignment(fapl->id, own->threshold, own->boundary);
    if (set->meta_block != own->meta_block)
        H5Pset_meta_block_size(fapl->id, own->meta_block);
    if (set->sieve != own->sieve)
        H5Pset_sieve_buf_size(fapl->id, own->sieve);
    if (set->coll_write != own->coll_write)
        H5Pset_coll_metadata_write(fapl->id, own->coll_write);
    if (set->coll_ops != own->coll_ops)
        H5Pset_all_coll_metadata_ops(fapl->id, own->coll_ops);
    fapl->id = -1;
}

/* --- dataset creation ------------------------------------------------------------------------ */

/* chunk_size: whole trailing dimensions, split along the slowest axis that has to be split. */
static void chunk_from_size(long long target, size_t element, int rank, const hsize_t *dims,
                            hsize_t *chunk)
{
    long long row = (long long)element;
    for (int i = 0; i < rank; i++)
        chunk[i] = dims[i] ? dims[i] : 1;
    for (int i = 0; i < rank; i++) {
        long long rest = row;
        for (int j = i + 1; j < rank; j++)
            rest *= (long long)chunk[j];
        long long fit = target / rest;
        if (fit >= 1) {
            chunk[i] = fit < (long long)chunk[i] ? (hsize_t)fit : chunk[i];
            return;
        }
        chunk[i] = 1;
    }
}

static int chunk_dims(struct iot_dataset *d, hid_t type, hid_t space, hsize_t *chunk)
{
    const struct iot_value *v = d->resolved->settings.v;
    hsize_t dims[H5S_MAX_RANK], maxdims[H5S_MAX_RANK];
    char requested[64], reason[128];
    int rank = H5Sget_simple_extent_dims(space, dims, maxdims);
    const char *key = v[IOT_K_DATASET_CHUNK_DIMS].set ? "dataset.chunk_dims" : "dataset.chunk_size";
    if (rank < 1) {
        iot_not_effective(&d->not_effective, key, NULL, NULL, "a scalar or null dataspace cannot be chunked");
        return 0;
    }
    if (v[IOT_K_DATASET_CHUNK_DIMS].set && v[IOT_K_DATASET_CHUNK_DIMS].nlist != rank) {
        snprintf(requested, sizeof requested, "%d dimensions", v[IOT_K_DATASET_CHUNK_DIMS].nlist);
        snprintf(reason, sizeof reason, "the dataset has %d dimensions", rank);
        iot_not_effective(&d->not_effective, key, requested, NULL, reason);
        return 0;
    }
    if (v[IOT_K_DATASET_CHUNK_DIMS].set)
        for (int i = 0; i < rank; i++)
            chunk[i] = (hsize_t)v[IOT_K_DATASET_CHUNK_DIMS].list[i];
    else
        chunk_from_size(v[IOT_K_DATASET_CHUNK_SIZE].i, H5Tget_size(type), rank, dims, chunk);
    for (int i = 0; i < rank; i++)   /* HDF5 refuses chunks larger than a fixed dimension */
        if (maxdims[i] != H5S_UNLIMITED && chunk[i] > maxdims[i])
            chunk[i] = maxdims[i] ? maxdims[i] : 1;
    return rank;
}

static const H5D_fill_time_t FILL_TIMES[] = {H5D_FILL_TIME_NEVER, H5D_FILL_TIME_ALLOC,
                                             H5D_FILL_TIME_IFSET};
static const H5D_alloc_time_t ALLOC_TIMES[] = {H5D_ALLOC_TIME_DEFAULT, H5D_ALLOC_TIME_EARLY,
                                               H5D_ALLOC_TIME_LATE, H5D_ALLOC_TIME_INCR};

/* What the settings ask of a dataset's creation list. */
struct wanted_creation {
    const struct iot_value *fill, *alloc;   /* the settings' values (set or not) */
    int alloc_by_driver;                    /* the file's driver decides the alloc time */
    int rank;                               /* of the chunk; 0: no chunking to set */
    hsize_t chunk[H5S_MAX_RANK];
};

/* An alloc time to set on the list: asked for, and not one the file's driver overrides (it
 * would change nothing HDF5 does; the read-back says what the driver did). */
static int sets_alloc(const struct wanted_creation *w)
{
    return w->alloc->set && !w->alloc_by_driver;
}

static void put_choice(struct buf *applied, int *n, int key, const struct iot_value *value)
{
    put(applied, iot_json_sep(n));
    PUT(applied, "\"");
    put(applied, IOT_KEYS[key].name);
    PUT(applied, "\": \"");
    put(applied, IOT_KEYS[key].values[value->i]);
    PUT(applied, "\"");
}

/* The settings on dcpl, or on none (H5I_INVALID_HID) when the application's list has them
 * already. What took goes to the JSON members returned (no braces) and to *given, the
 * settings of the list HDF5 gets (the application's until then): reading them from the copy
 * would cost as much again as reading the application's. */
static char *set_creation(const struct wanted_creation *w, hid_t dcpl, struct iot_creation *given)
{
    struct buf applied = {NULL, 0, 0, 0};
    int n = 0, already = dcpl == H5I_INVALID_HID;
    PUT(&applied, "");
    if (w->rank > 0 && (already || H5Pset_chunk(dcpl, w->rank, w->chunk) >= 0)) {
        put(&applied, iot_json_sep(&n));
        PUT(&applied, "\"chunk_dims\": ");
        put_hsizes(&applied, w->chunk, w->rank, 0);
        given->layout = H5D_CHUNKED;
        given->chunk_rank = w->rank;
        memcpy(given->chunk, w->chunk, (size_t)w->rank * sizeof *w->chunk);
    }
    if (w->fill->set && (already || H5Pset_fill_time(dcpl, FILL_TIMES[w->fill->i]) >= 0)) {
        put_choice(&applied, &n, IOT_K_DATASET_FILL_TIME, w->fill);
        given->fill = FILL_TIMES[w->fill->i];
    }
    if (w->alloc->set && w->alloc_by_driver) {
        put_choice(&applied, &n, IOT_K_DATASET_ALLOC_TIME, w->alloc);
    } else if (w->alloc->set
               && (already || H5Pset_alloc_time(dcpl, ALLOC_TIMES[w->alloc->i]) >= 0)) {
        put_choice(&applied, &n, IOT_K_DATASET_ALLOC_TIME, w->alloc);
        given->alloc = ALLOC_TIMES[w->alloc->i];
    }
    /* HDF5 turns "default" into the layout's alloc time, and a list's unset alloc time follows
     * its layout (H5Pset_chunk) */
    if (!already && (w->rank > 0 || given->alloc == H5D_ALLOC_TIME_DEFAULT))
        H5Pget_alloc_time(dcpl, &given->alloc);
    return buf_take(&applied);
}

/* Whether a setting asked for is not in the application's list yet (`own`, read from it; NULL:
 * unknown), so that setting it needs a copy of the list: copying and closing a list costs
 * several times more than reading it. */
static int needs_copy(const struct wanted_creation *w, const struct iot_creation *own)
{
    if (!own)
        return 1;
    if (w->rank > 0
        && (own->layout != H5D_CHUNKED || own->chunk_rank != w->rank
            || memcmp(own->chunk, w->chunk, (size_t)w->rank * sizeof *w->chunk) != 0))
        return 1;
    if (w->fill->set && FILL_TIMES[w->fill->i] != own->fill)
        return 1;
    return sets_alloc(w) && ALLOC_TIMES[w->alloc->i] != own->alloc;
}

/* Amended copies of the default creation list for settings without chunking, one per
 * fill_time x alloc_time the config asks for: copying a list costs more than the rest of the
 * creation hook, and the default list never changes. HDF5 frees them when it shuts down. */
#define TIME_CHOICES 5   /* "not set" and the values of the larger of the two enums */

static struct {
    hid_t dcpl;
    char *applied;
    struct iot_creation given;
} default_copies[TIME_CHOICES][TIME_CHOICES];

static int default_copy_reusable(const struct wanted_creation *w, int chunking, hid_t app_dcpl,
                                 int *fill, int *alloc)
{
    if (app_dcpl != H5P_DEFAULT || chunking)
        return 0;
    *fill = w->fill->set ? 1 + (int)w->fill->i : 0;
    *alloc = sets_alloc(w) ? 1 + (int)w->alloc->i : 0;
    return 1;
}

int iot_sets_dcpl(const struct iot_settings *settings)
{
    const struct iot_value *v = settings->v;
    return v[IOT_K_DATASET_CHUNK_SIZE].set || v[IOT_K_DATASET_CHUNK_DIMS].set
           || v[IOT_K_DATASET_FILL_TIME].set || v[IOT_K_DATASET_ALLOC_TIME].set;
}

int iot_driver_allocates_early(const struct iot_file *file)
{
    return file->collective;
}

/* HDF5 keeps apart whether a list's alloc time was set or follows its layout (H5Pset_chunk
 * re-derives it only then); no H5Pget_* call reads that, the generic property does. */
static const char ALLOC_TIME_STATE[] = "alloc_time_state";

/* Fill and alloc time go on the application's own list for the create and are put back right
 * after, as the access settings are: a copy and its close cost twice the rest of the hook in a
 * program that makes a list per dataset. Chunking is not: H5Pset_chunk replaces the list's
 * whole layout (a compact or virtual layout's contents, chunk options), which the public calls
 * cannot set back as it was. */
static int settable_in_place(const struct wanted_creation *w, hid_t app_dcpl,
                             const struct iot_creation *own, unsigned *alloc_state)
{
    if (app_dcpl == H5P_DEFAULT || !own || w->rank > 0)
        return 0;
    return !sets_alloc(w) || H5Pget(app_dcpl, ALLOC_TIME_STATE, alloc_state) >= 0;
}

void iot_apply_dcpl(struct iot_dataset *d, const struct iot_file *file, hid_t app_dcpl,
                    const struct iot_creation *own, struct iot_creation *given, hid_t type,
                    hid_t space, struct iot_dcpl *out)
{
    const struct iot_value *v = d->resolved->settings.v;
    struct wanted_creation w = {&v[IOT_K_DATASET_FILL_TIME], &v[IOT_K_DATASET_ALLOC_TIME],
                                iot_driver_allocates_early(file), 0, {0}};
    int fill = 0, alloc = 0;
    out->id = -1;
    out->in_place = 0;
    if (!iot_sets_dcpl(&d->resolved->settings))
        return;
    int chunking = v[IOT_K_DATASET_CHUNK_SIZE].set || v[IOT_K_DATASET_CHUNK_DIMS].set;
    if (chunking)
        w.rank = chunk_dims(d, type, space, w.chunk);
    if (own)
        *given = *own;
    if (!needs_copy(&w, own)) {
        d->applied_creation = set_creation(&w, H5I_INVALID_HID, given);
        return;
    }
    if (settable_in_place(&w, app_dcpl, own, &out->alloc_state)) {
        out->id = app_dcpl;
        out->in_place = 1;
        out->fill = own->fill;
        out->alloc = own->alloc;
        out->fill_set = w.fill->set;
        out->alloc_set = sets_alloc(&w);
        d->applied_creation = set_creation(&w, app_dcpl, given);
        return;
    }
    int reusable = default_copy_reusable(&w, chunking, app_dcpl, &fill, &alloc);
    if (reusable && default_copies[fill][alloc].applied
        && H5Iis_valid(default_copies[fill][alloc].dcpl) > 0) {   /* gone if the app ran H5close */
        d->applied_creation = strdup(default_copies[fill][alloc].applied);
        *given = default_copies[fill][alloc].given;
        out->id = default_copies[fill][alloc].dcpl;
        return;
    }
    hid_t dcpl = H5Pcopy(app_dcpl == H5P_DEFAULT ? H5P_DATASET_CREATE_DEFAULT : app_dcpl);
    if (dcpl < 0)
        return;
    d->applied_creation = set_creation(&w, dcpl, given);
    if (!own)
        iot_read_creation(dcpl, given);
    if (reusable && d->applied_creation) {
        free(default_copies[fill][alloc].applied);
        default_copies[fill][alloc].dcpl = dcpl;
        default_copies[fill][alloc].applied = strdup(d->applied_creation);
        default_copies[fill][alloc].given = *given;
    }
    out->id = dcpl;
}

void iot_apply_free(void)
{
    for (int f = 0; f < TIME_CHOICES; f++)
        for (int a = 0; a < TIME_CHOICES; a++) {
            free(default_copies[f][a].applied);
            default_copies[f][a].applied = NULL;
        }
}

static int kept_default_copy(hid_t dcpl)
{
    for (int f = 0; f < TIME_CHOICES; f++)
        for (int a = 0; a < TIME_CHOICES; a++)
            if (default_copies[f][a].applied && default_copies[f][a].dcpl == dcpl)
                return 1;
    return 0;
}

void iot_dcpl_restore(struct iot_dcpl *dcpl)
{
    if (dcpl->id < 0)
        return;
    if (dcpl->in_place) {
        if (dcpl->fill_set)
            H5Pset_fill_time(dcpl->id, dcpl->fill);
        if (dcpl->alloc_set) {
            H5Pset_alloc_time(dcpl->id, dcpl->alloc);
            H5Pset(dcpl->id, ALLOC_TIME_STATE, &dcpl->alloc_state);
        }
    } else if (!kept_default_copy(dcpl->id)) {
        iot_list_close(dcpl->id);
    }
    dcpl->id = -1;
}

int iot_transfer_mode(const struct iot_settings *settings, H5FD_mpio_xfer_t *mode)
{
    const struct iot_value *v = &settings->v[IOT_K_DATASET_TRANSFER_MODE];
    if (!v->set)
        return 0;
    *mode = v->i == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT;
    return 1;
}
