#define _GNU_SOURCE
#include "hdf5/apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/text.h"
#include "mpiio/hints.h"

/* --- file access ----------------------------------------------------------------------------- */

static void apply_alignment(const struct iot_settings *s, hid_t fapl, FILE *applied, int *n)
{
    hsize_t threshold = 1, boundary = 1;
    H5Pget_alignment(fapl, &threshold, &boundary);
    if (s->v[IOT_K_HDF5_ALIGNMENT_THRESHOLD].set)
        threshold = (hsize_t)s->v[IOT_K_HDF5_ALIGNMENT_THRESHOLD].i;
    if (s->v[IOT_K_HDF5_ALIGNMENT_BOUNDARY].set)
        boundary = (hsize_t)s->v[IOT_K_HDF5_ALIGNMENT_BOUNDARY].i;
    H5Pset_alignment(fapl, threshold, boundary);
    fprintf(applied, "%s\"alignment\": {\"threshold\": %llu, \"boundary\": %llu}",
            iot_json_sep(n), (unsigned long long)threshold, (unsigned long long)boundary);
}

static void apply_hdf5(const struct iot_settings *s, hid_t fapl, int mpio, FILE *applied)
{
    const struct iot_value *v = s->v;
    int n = 0;
    fputs(", \"hdf5\": {", applied);
    if (v[IOT_K_HDF5_ALIGNMENT].set)
        apply_alignment(s, fapl, applied, &n);
    if (v[IOT_K_HDF5_META_BLOCK_SIZE].set && H5Pset_meta_block_size(fapl, (hsize_t)v[IOT_K_HDF5_META_BLOCK_SIZE].i) >= 0)
        fprintf(applied, "%s\"meta_block_size\": %lld", iot_json_sep(&n), v[IOT_K_HDF5_META_BLOCK_SIZE].i);
    if (v[IOT_K_HDF5_SIEVE_BUF_SIZE].set && H5Pset_sieve_buf_size(fapl, (size_t)v[IOT_K_HDF5_SIEVE_BUF_SIZE].i) >= 0)
        fprintf(applied, "%s\"sieve_buf_size\": %lld", iot_json_sep(&n), v[IOT_K_HDF5_SIEVE_BUF_SIZE].i);
    if (mpio && v[IOT_K_HDF5_COLL_METADATA_WRITE].set
        && H5Pset_coll_metadata_write(fapl, (hbool_t)v[IOT_K_HDF5_COLL_METADATA_WRITE].i) >= 0)
        fprintf(applied, "%s\"coll_metadata_write\": %s", iot_json_sep(&n),
                v[IOT_K_HDF5_COLL_METADATA_WRITE].i ? "true" : "false");
    if (mpio && v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].set
        && H5Pset_all_coll_metadata_ops(fapl, (hbool_t)v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].i) >= 0)
        fprintf(applied, "%s\"all_coll_metadata_ops\": %s", iot_json_sep(&n),
                v[IOT_K_HDF5_ALL_COLL_METADATA_OPS].i ? "true" : "false");
    fputc('}', applied);
}

/* Whether the settings set any HDF5 file access property. */
static int sets_hdf5(const struct iot_settings *s)
{
    for (int id = 0; id < IOT_NKEYS; id++)
        if (s->v[id].set && IOT_KEYS[id].block >= 0
            && (1u << IOT_KEYS[id].block) == IOT_B_HDF5)
            return 1;
    return 0;
}

hid_t iot_apply_fapl(struct iot_file *file, hid_t given)
{
    size_t len = 0;
    FILE *applied = open_memstream(&file->applied, &len);
    hid_t fapl = sets_hdf5(&file->settings) ? H5Pcopy(given) : -1;
    file->mpio = H5Pget_driver(given) == H5FD_MPIO;
    file->requested = iot_hints_requested(&file->settings);
    fputs("{\"hints\": ", applied);
    iot_write_info(applied, file->requested);
    if (fapl >= 0)
        apply_hdf5(&file->settings, fapl, file->mpio, applied);
    else
        fputs(", \"hdf5\": {}", applied);
    iot_write_applied_mca(applied, &file->settings);
    fputc('}', applied);
    fclose(applied);
    return fapl;
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

static void apply_chunking(struct iot_dataset *d, hid_t dcpl, hid_t type, hid_t space,
                           struct buf *applied, int *n)
{
    hsize_t chunk[H5S_MAX_RANK];
    int rank = chunk_dims(d, type, space, chunk);
    if (rank < 1 || H5Pset_chunk(dcpl, rank, chunk) < 0)
        return;
    put(applied, iot_json_sep(n));
    PUT(applied, "\"chunk_dims\": ");
    put_hsizes(applied, chunk, rank, 0);
}

static const H5D_fill_time_t FILL_TIMES[] = {H5D_FILL_TIME_NEVER, H5D_FILL_TIME_ALLOC,
                                             H5D_FILL_TIME_IFSET};
static const H5D_alloc_time_t ALLOC_TIMES[] = {H5D_ALLOC_TIME_DEFAULT, H5D_ALLOC_TIME_EARLY,
                                               H5D_ALLOC_TIME_LATE, H5D_ALLOC_TIME_INCR};

/* fill_time and alloc_time on dcpl; what took goes to applied. */
static void apply_times(const struct iot_value *v, hid_t dcpl, struct buf *applied, int *n)
{
    const struct iot_value *fill = &v[IOT_K_DATASET_FILL_TIME], *alloc = &v[IOT_K_DATASET_ALLOC_TIME];
    if (fill->set && H5Pset_fill_time(dcpl, FILL_TIMES[fill->i]) >= 0) {
        put(applied, iot_json_sep(n));
        PUT(applied, "\"fill_time\": \"");
        put(applied, IOT_KEYS[IOT_K_DATASET_FILL_TIME].values[fill->i]);
        PUT(applied, "\"");
    }
    if (alloc->set && H5Pset_alloc_time(dcpl, ALLOC_TIMES[alloc->i]) >= 0) {
        put(applied, iot_json_sep(n));
        PUT(applied, "\"alloc_time\": \"");
        put(applied, IOT_KEYS[IOT_K_DATASET_ALLOC_TIME].values[alloc->i]);
        PUT(applied, "\"");
    }
}

/* Amended copies of the default creation list for settings without chunking, one per
 * fill_time x alloc_time the config asks for: copying a list costs more than the rest of the
 * creation hook, and the default list never changes. HDF5 frees them when it shuts down. */
#define TIME_CHOICES 5   /* "not set" and the values of the larger of the two enums */

static struct {
    hid_t dcpl;
    char *applied;
} default_copies[TIME_CHOICES][TIME_CHOICES];

static int default_copy_reusable(const struct iot_value *v, hid_t app_dcpl, int *fill, int *alloc)
{
    if (app_dcpl != H5P_DEFAULT || v[IOT_K_DATASET_CHUNK_SIZE].set || v[IOT_K_DATASET_CHUNK_DIMS].set)
        return 0;
    *fill = v[IOT_K_DATASET_FILL_TIME].set ? 1 + (int)v[IOT_K_DATASET_FILL_TIME].i : 0;
    *alloc = v[IOT_K_DATASET_ALLOC_TIME].set ? 1 + (int)v[IOT_K_DATASET_ALLOC_TIME].i : 0;
    return 1;
}

int iot_sets_dcpl(const struct iot_settings *settings)
{
    const struct iot_value *v = settings->v;
    return v[IOT_K_DATASET_CHUNK_SIZE].set || v[IOT_K_DATASET_CHUNK_DIMS].set
           || v[IOT_K_DATASET_FILL_TIME].set || v[IOT_K_DATASET_ALLOC_TIME].set;
}

hid_t iot_apply_dcpl(struct iot_dataset *d, hid_t app_dcpl, hid_t type, hid_t space)
{
    const struct iot_value *v = d->resolved->settings.v;
    int fill = 0, alloc = 0, n = 0;
    if (!iot_sets_dcpl(&d->resolved->settings))
        return -1;
    int reusable = default_copy_reusable(v, app_dcpl, &fill, &alloc);
    if (reusable && default_copies[fill][alloc].applied
        && H5Iis_valid(default_copies[fill][alloc].dcpl) > 0) {   /* gone if the app ran H5close */
        d->applied_creation = strdup(default_copies[fill][alloc].applied);
        return default_copies[fill][alloc].dcpl;
    }
    hid_t dcpl = H5Pcopy(app_dcpl == H5P_DEFAULT ? H5P_DATASET_CREATE_DEFAULT : app_dcpl);
    struct buf applied = {NULL, 0, 0, 0};
    PUT(&applied, "");
    if (v[IOT_K_DATASET_CHUNK_SIZE].set || v[IOT_K_DATASET_CHUNK_DIMS].set)
        apply_chunking(d, dcpl, type, space, &applied, &n);
    apply_times(v, dcpl, &applied, &n);
    d->applied_creation = applied.s;
    if (reusable && dcpl >= 0 && applied.s) {
        free(default_copies[fill][alloc].applied);
        default_copies[fill][alloc].dcpl = dcpl;
        default_copies[fill][alloc].applied = strdup(applied.s);
    }
    return dcpl;
}

void iot_apply_free(void)
{
    for (int f = 0; f < TIME_CHOICES; f++)
        for (int a = 0; a < TIME_CHOICES; a++) {
            free(default_copies[f][a].applied);
            default_copies[f][a].applied = NULL;
        }
}

void iot_release_dcpl(hid_t dcpl)
{
    for (int f = 0; f < TIME_CHOICES; f++)
        for (int a = 0; a < TIME_CHOICES; a++)
            if (default_copies[f][a].applied && default_copies[f][a].dcpl == dcpl)
                return;
    H5Pclose(dcpl);
}

int iot_transfer_mode(const struct iot_settings *settings, H5FD_mpio_xfer_t *mode)
{
    const struct iot_value *v = &settings->v[IOT_K_DATASET_TRANSFER_MODE];
    if (!v->set)
        return 0;
    *mode = v->i == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT;
    return 1;
}
