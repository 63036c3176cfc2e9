#include "replay_io.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct open_file {
    char path[512];
    file_api api;
    MPI_Comm comm;
    hid_t h5;
    MPI_File mpi;
    uint64_t mpi_end;     /* bytes already used in a bare MPI-IO file */
    open_file *next;
};

/* The file name with %r (rank) and %g (group) replaced. */
static void expand_name(const char *pattern, uint64_t rank, uint64_t group, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < n; p++) {
        if (p[0] == '%' && (p[1] == 'r' || p[1] == 'g')) {
            o += (size_t)snprintf(out + o, n - o, "%llu",
                                  (unsigned long long)(p[1] == 'r' ? rank : group));
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < n ? o : n - 1] = '\0';
}

static double now_synced(MPI_Comm comm)
{
    MPI_Barrier(comm);
    return MPI_Wtime();
}

static hid_t element_type(uint64_t element_bytes)
{
    switch (element_bytes) {
    case 1: return H5T_NATIVE_UINT8;
    case 2: return H5T_NATIVE_UINT16;
    case 4: return H5T_NATIVE_FLOAT;
    default: return H5T_NATIVE_DOUBLE;
    }
}

static int open_h5(open_file *f, int create, char *err, size_t errlen)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, f->comm, MPI_INFO_NULL);
    f->h5 = create ? H5Fcreate(f->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                   : H5Fopen(f->path, H5F_ACC_RDWR, fapl);
    H5Pclose(fapl);
    if (f->h5 < 0) {
        snprintf(err, errlen, "%s: cannot %s the HDF5 file", f->path, create ? "create" : "open");
        return -1;
    }
    return 0;
}

static int open_mpiio(open_file *f, int create, char *err, size_t errlen)
{
    int amode = MPI_MODE_WRONLY | (create ? MPI_MODE_CREATE : 0);
    if (MPI_File_open(f->comm, f->path, amode, MPI_INFO_NULL, &f->mpi) != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: cannot open with MPI-IO", f->path);
        return -1;
    }
    MPI_Offset size = 0;
    if (create)
        MPI_File_set_size(f->mpi, 0);
    else
        MPI_File_get_size(f->mpi, &size);
    f->mpi_end = (uint64_t)size;
    return 0;
}

/* The session's file for this rank: the one still open from an earlier session, or a new one. */
static open_file *acquire(replay_state *st, const replay_session *s, MPI_Comm comm,
                          const char *path, char *err, size_t errlen)
{
    for (open_file *f = st->open; f; f = f->next)
        if (!strcmp(f->path, path)) {
            MPI_Comm_free(&comm);
            return f;
        }
    open_file *f = calloc(1, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->api = s->api;
    f->comm = comm;
    int rc = s->api == API_HDF5 ? open_h5(f, s->create, err, errlen)
                                : open_mpiio(f, s->create, err, errlen);
    if (rc) {
        MPI_Comm_free(&f->comm);
        free(f);
        return NULL;
    }
    f->next = st->open;
    st->open = f;
    return f;
}

/* The row range of call `call` in a block of `rows` rows cut into slabs of `slab` rows. */
static uint64_t slab_rows(uint64_t rows, uint64_t slab, uint64_t call)
{
    uint64_t first = call * slab;
    return first >= rows ? 0 : (rows - first < slab ? rows - first : slab);
}

static uint64_t rows_per_call(const replay_dataset *d, const uint64_t count[])
{
    uint64_t row = 1;
    for (int a = 1; a < d->decomp.ndims; a++)
        row *= count[a];
    if (!d->access_elements || !row)
        return count[0] ? count[0] : 1;
    uint64_t rows = d->access_elements / row;
    return rows ? rows : 1;
}

static uint64_t calls_needed(const replay_dataset *d, MPI_Comm comm, uint64_t rows, uint64_t slab)
{
    uint64_t mine = (rows + slab - 1) / slab, most = mine;
    if (d->collective)
        MPI_Allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    return most;
}

static void fill(void *buf, uint64_t bytes, uint64_t rank)
{
    memset(buf, (int)(rank * 37 + 11) & 0xff, bytes);
}

static int write_h5_dataset(open_file *f, const replay_dataset *d, uint64_t writer,
                            uint64_t rank, uint64_t *calls, char *err, size_t errlen)
{
    hsize_t dims[DECOMP_MAX_DIMS], start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS];
    uint64_t u[DECOMP_MAX_DIMS], s0[DECOMP_MAX_DIMS], c0[DECOMP_MAX_DIMS];
    int nd = d->decomp.ndims;
    decomp_dims(&d->decomp, u);
    decomp_block(&d->decomp, writer, s0, c0);
    for (int a = 0; a < nd; a++)
        dims[a] = u[a];
    hid_t space = H5Screate_simple(nd, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    if (d->chunked) {
        hsize_t chunk[DECOMP_MAX_DIMS];
        for (int a = 0; a < nd; a++)
            chunk[a] = d->chunk[a];
        H5Pset_chunk(dcpl, nd, chunk);
    }
    hid_t type = element_type(d->element_bytes);
    hid_t dset = H5Dcreate2(f->h5, d->name, type, space, lcpl, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Pclose(lcpl);
    if (dset < 0) {
        H5Sclose(space);
        snprintf(err, errlen, "%s: cannot create dataset %s", f->path, d->name);
        return -1;
    }
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, d->collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    uint64_t slab = rows_per_call(d, c0), ncalls = calls_needed(d, f->comm, c0[0], slab);
    uint64_t row = decomp_block_elements(&d->decomp, writer) / (c0[0] ? c0[0] : 1);
    void *buf = malloc((size_t)(slab * row * d->element_bytes) + 1);
    fill(buf, slab * row * d->element_bytes, rank);
    herr_t rc = 0;
    for (uint64_t call = 0; call < ncalls && rc >= 0; call++) {
        uint64_t rows = slab_rows(c0[0], slab, call);
        for (int a = 0; a < nd; a++) {
            start[a] = s0[a];
            count[a] = c0[a];
        }
        start[0] += call * slab;
        count[0] = rows;
        uint64_t elements = rows * row;
        hsize_t mem_n = elements ? elements : 1;
        hid_t mem = H5Screate_simple(1, &mem_n, NULL);
        if (elements) {
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
        } else {
            H5Sselect_none(space);
            H5Sselect_none(mem);
        }
        rc = H5Dwrite(dset, type, mem, space, dxpl, buf);
        H5Sclose(mem);
        *calls += 1;
    }
    free(buf);
    H5Pclose(dxpl);
    H5Dclose(dset);
    H5Sclose(space);
    if (rc < 0) {
        snprintf(err, errlen, "%s: writing dataset %s failed", f->path, d->name);
        return -1;
    }
    return 0;
}

/* A bare MPI-IO "dataset": each writer's block bytes, contiguous, in writer order. */
static int write_mpiio_dataset(open_file *f, const replay_dataset *d, uint64_t writer,
                               uint64_t rank, uint64_t *calls, char *err, size_t errlen)
{
    uint64_t writers = decomp_writers(&d->decomp), offset = f->mpi_end, total = 0, mine = 0;
    for (uint64_t w = 0; w < writers; w++) {
        uint64_t bytes = decomp_block_elements(&d->decomp, w) * d->element_bytes;
        if (w < writer)
            offset += bytes;
        if (w == writer)
            mine = bytes;
        total += bytes;
    }
    uint64_t step = d->access_elements ? d->access_elements * d->element_bytes : mine;
    step = step ? step : 1;
    uint64_t ncalls = (mine + step - 1) / step, most = ncalls;
    if (d->collective)
        MPI_Allreduce(&ncalls, &most, 1, MPI_UINT64_T, MPI_MAX, f->comm);
    char *buf = malloc((size_t)step);
    fill(buf, step, rank);
    int rc = MPI_SUCCESS;
    for (uint64_t call = 0; call < most && rc == MPI_SUCCESS; call++) {
        uint64_t first = call * step, n = first >= mine ? 0 : (mine - first < step ? mine - first : step);
        MPI_Offset at = (MPI_Offset)(offset + (n ? first : 0));
        rc = d->collective ? MPI_File_write_at_all(f->mpi, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_write_at(f->mpi, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
        *calls += 1;
    }
    free(buf);
    f->mpi_end += total;
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: MPI-IO write of %s failed", f->path, d->name);
        return -1;
    }
    return 0;
}

static int flush_file(open_file *f, uint64_t flushes, int sync)
{
    int rc = 0;
    for (uint64_t i = 0; i < flushes || (sync && i == 0); i++) {
        if (f->api == API_HDF5)
            rc |= H5Fflush(f->h5, H5F_SCOPE_GLOBAL) < 0;
        else
            rc |= MPI_File_sync(f->mpi) != MPI_SUCCESS;
    }
    return rc ? -1 : 0;
}

static int close_file(replay_state *st, open_file *f)
{
    int rc = f->api == API_HDF5 ? (H5Fclose(f->h5) < 0 ? -1 : 0)
                                : (MPI_File_close(&f->mpi) != MPI_SUCCESS ? -1 : 0);
    for (open_file **p = &st->open; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    MPI_Comm_free(&f->comm);
    free(f);
    return rc;
}

static uint64_t session_payload(const replay_session *s, uint64_t ranks)
{
    uint64_t per_file = 0, writers, writer, files;
    for (size_t i = 0; i < s->ndatasets; i++) {
        uint64_t dims[DECOMP_MAX_DIMS], n = 1;
        decomp_dims(&s->datasets[i].decomp, dims);
        for (int a = 0; a < s->datasets[i].decomp.ndims; a++)
            n *= dims[a];
        per_file += n * s->datasets[i].element_bytes;
    }
    replay_session_place(s, ranks, 0, &writers, &writer, &files);
    return per_file * (ranks / writers);
}

int replay_session_run(replay_state *st, const replay_session *s, session_times *times,
                       char *err, size_t errlen)
{
    uint64_t writers, writer, file_index;
    char path[512];
    replay_session_place(s, st->ranks, st->rank, &writers, &writer, &file_index);
    expand_name(s->name, st->rank, file_index, path, sizeof path);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, (int)file_index, (int)writer, &comm);
    int failed = 0, any;
    double t0 = now_synced(MPI_COMM_WORLD);
    open_file *f = acquire(st, s, comm, path, err, errlen);
    failed = !f;
    double t1 = now_synced(MPI_COMM_WORLD);
    for (size_t i = 0; i < s->ndatasets && !failed; i++)
        failed = (s->api == API_HDF5 ? write_h5_dataset : write_mpiio_dataset)(
            f, &s->datasets[i], writer, st->rank, &times->write_calls, err, errlen) != 0;
    double t2 = now_synced(MPI_COMM_WORLD);
    if (!failed && flush_file(f, s->flushes, st->sync && !s->keep_open)) {
        snprintf(err, errlen, "%s: flush failed", path);
        failed = 1;
    }
    double t3 = now_synced(MPI_COMM_WORLD);
    if (!failed && !s->keep_open && close_file(st, f)) {
        snprintf(err, errlen, "%s: close failed", path);
        failed = 1;
    }
    double t4 = now_synced(MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    times->open_s += t1 - t0;
    times->write_s += t2 - t1;
    times->sync_s += t3 - t2;
    times->close_s += t4 - t3;
    times->bytes += session_payload(s, st->ranks);
    if (any && !failed)
        snprintf(err, errlen, "%s: another rank failed", path);
    return any ? -1 : 0;
}

int replay_close_all(replay_state *st, session_times *times, char *err, size_t errlen)
{
    double t0 = now_synced(MPI_COMM_WORLD);
    int failed = 0;
    while (st->open) {
        open_file *f = st->open;
        if (flush_file(f, 0, st->sync) || close_file(st, f)) {
            snprintf(err, errlen, "closing files kept open failed");
            failed = 1;
        }
    }
    times->close_s += now_synced(MPI_COMM_WORLD) - t0;
    return failed ? -1 : 0;
}
