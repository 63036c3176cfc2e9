#include "replay_io.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/h5output.h"

struct open_file {
    char path[512];
    file_api api;
    MPI_Comm comm;
    h5_output h5;
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
    int rc = s->api == API_HDF5
                 ? h5_output_open(&f->h5, f->path, f->comm, s->create, 0, err, errlen)
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

static void fill(void *buf, uint64_t bytes, uint64_t rank)
{
    memset(buf, (int)(rank * 37 + 11) & 0xff, bytes);
}

static int write_h5_dataset(open_file *f, const replay_dataset *d, uint64_t k, char *err,
                            size_t errlen)
{
    h5_output_set_transfer(&f->h5, !d->collective);
    return h5_output_write_dataset(&f->h5, &d->spec, k, err, errlen);
}

/* A bare MPI-IO "dataset": each writer's block bytes, contiguous, in writer order. */
static int write_mpiio_dataset(open_file *f, const replay_dataset *d, uint64_t writer,
                               uint64_t rank, char *err, size_t errlen)
{
    const dataset_spec *spec = &d->spec;
    uint64_t size = element_bytes(spec->type);
    uint64_t writers = decomp_writers(&spec->decomp), offset = f->mpi_end, total = 0, mine = 0;
    for (uint64_t w = 0; w < writers; w++) {
        uint64_t bytes = decomp_block_elements(&spec->decomp, w) * size;
        if (w < writer)
            offset += bytes;
        if (w == writer)
            mine = bytes;
        total += bytes;
    }
    uint64_t step = spec->access_elements ? spec->access_elements * size : mine;
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
    }
    free(buf);
    f->mpi_end += total;
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: MPI-IO write of %s failed", f->path, spec->name);
        return -1;
    }
    return 0;
}

static int flush_file(open_file *f, uint64_t flushes, int sync, char *err, size_t errlen)
{
    for (uint64_t i = 0; i < flushes || (sync && i == 0); i++) {
        if (f->api == API_HDF5 && h5_output_sync(&f->h5, err, errlen))
            return -1;
        if (f->api == API_MPIIO && MPI_File_sync(f->mpi) != MPI_SUCCESS) {
            snprintf(err, errlen, "cannot sync '%s' to storage", f->path);
            return -1;
        }
    }
    return 0;
}

static int close_file(replay_state *st, open_file *f, char *err, size_t errlen)
{
    int rc = f->api == API_HDF5 ? h5_output_close(&f->h5, err, errlen)
                                : MPI_File_close(&f->mpi) != MPI_SUCCESS ? -1 : 0;
    if (rc && f->api == API_MPIIO)
        snprintf(err, errlen, "cannot close '%s'", f->path);
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
    for (size_t i = 0; i < s->ndatasets; i++)
        per_file += dataset_elements(&s->datasets[i].spec) * element_bytes(s->datasets[i].spec.type);
    replay_session_place(s, ranks, 0, &writers, &writer, &files);
    return per_file * (ranks / writers);
}

static int write_datasets(open_file *f, const replay_session *s, uint64_t writer,
                          uint64_t rank, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->ndatasets; i++) {
        int rc = s->api == API_HDF5
                     ? write_h5_dataset(f, &s->datasets[i], i, err, errlen)
                     : write_mpiio_dataset(f, &s->datasets[i], writer, rank, err, errlen);
        if (rc)
            return -1;
    }
    return 0;
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
    int failed, any;
    double opening = phase_clock(MPI_COMM_WORLD);
    open_file *f = acquire(st, s, comm, path, err, errlen);
    failed = !f;
    double writing = phase_clock(MPI_COMM_WORLD);
    failed = failed || write_datasets(f, s, writer, st->rank, err, errlen);
    double syncing = phase_clock(MPI_COMM_WORLD);
    failed = failed || flush_file(f, s->flushes, st->sync && !s->keep_open, err, errlen);
    double closing = phase_clock(MPI_COMM_WORLD);
    failed = failed || (!s->keep_open && close_file(st, f, err, errlen));
    double closed = phase_clock(MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    phase_times session = {writing - opening, syncing - writing, closing - syncing,
                           closed - closing};
    phase_add(&times->phases, &session);
    times->bytes += session_payload(s, st->ranks);
    if (any && !failed)
        snprintf(err, errlen, "%s: another rank failed", path);
    return any ? -1 : 0;
}

int replay_close_all(replay_state *st, session_times *times, char *err, size_t errlen)
{
    double start = phase_clock(MPI_COMM_WORLD);
    int failed = 0;
    while (st->open && !failed) {
        open_file *f = st->open;
        failed = flush_file(f, 0, st->sync, err, errlen) || close_file(st, f, err, errlen);
    }
    times->phases.close_s += phase_clock(MPI_COMM_WORLD) - start;
    return failed ? -1 : 0;
}
