/* File sessions with IOR's access pattern (as IOR's documentation describes it: a block of
 * each rank per segment, written in transfers; one shared file or one file per rank), through
 * POSIX calls or MPI-IO, for the interposer's tests and its overhead bench:
 *
 *   ior_like [--api posix|mpiio] [--collective] [--fpp] [--transfer BYTES] [--block BYTES]
 *            [--segments N] [--files N] [--dir DIR] [--sync]
 *
 * Each of --files sessions creates DIR/ior_like.<session> (with --fpp: .<session>.<rank>),
 * writes it and closes it. In segment s, rank r's block starts at (s * ranks + r) * block in
 * a shared file (IOR's segmented layout; ior-hard: one transfer a block, many segments) and
 * at s * block in its own file; a block is block / transfer writes of `transfer` bytes at
 * their offsets (pwrite; MPI_File_write_at, or _write_at_all with --collective). --sync
 * flushes before the close (fsync; MPI_File_sync). Defaults: posix, shared, 1 MiB transfers,
 * 4 MiB blocks, 1 segment, 1 file. Byte b of a shared file (of rank r's own file) holds
 * (b * 7 + 3 + r) mod 251 with r = 0, so a read of the file says where each write landed.
 * Rank 0 prints one JSON line, as tests/programs/file_sessions does: the slowest rank's time
 * from the first open to the last close, each session's, the bytes and the rate. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_times.h"

struct options {
    const char *api, *dir;
    int collective, fpp, sync, files;
    long long transfer, block, segments;
};

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "ior_like: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long long positive(const char *text, const char *option)
{
    char *end;
    long long n = strtoll(text, &end, 10);
    if (*end || n < 1)
        fail(option, "expected a positive integer");
    return n;
}

static struct options parse(int argc, char **argv)
{
    struct options o = {"posix", ".", 0, 0, 0, 1, 1 << 20, 4 << 20, 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--collective") == 0)
            o.collective = 1;
        else if (strcmp(a, "--fpp") == 0)
            o.fpp = 1;
        else if (strcmp(a, "--sync") == 0)
            o.sync = 1;
        else if (!value)
            fail("unknown argument or missing value", a);
        else if (strcmp(a, "--api") == 0)
            o.api = argv[++i];
        else if (strcmp(a, "--dir") == 0)
            o.dir = argv[++i];
        else if (strcmp(a, "--transfer") == 0)
            o.transfer = positive(argv[++i], a);
        else if (strcmp(a, "--block") == 0)
            o.block = positive(argv[++i], a);
        else if (strcmp(a, "--segments") == 0)
            o.segments = positive(argv[++i], a);
        else if (strcmp(a, "--files") == 0)
            o.files = (int)positive(argv[++i], a);
        else
            fail("unknown argument", a);
    }
    if (strcmp(o.api, "posix") != 0 && strcmp(o.api, "mpiio") != 0)
        fail("--api must be posix or mpiio", o.api);
    if (o.block % o.transfer)
        fail("--block must be a multiple of --transfer", NULL);
    if (o.collective && (o.fpp || strcmp(o.api, "mpiio") != 0))
        fail("--collective needs --api mpiio and a shared file", NULL);
    return o;
}

static void fill(unsigned char *buf, long long offset, long long n, int rank)
{
    for (long long i = 0; i < n; i++)
        buf[i] = (unsigned char)(((offset + i) * 7 + 3 + rank) % 251);
}

/* Where segment s's transfer t of this rank goes in its file. */
static long long offset_of(const struct options *o, int rank, int ranks, long long s,
                           long long t)
{
    long long block_at = o->fpp ? s * o->block : (s * ranks + rank) * o->block;
    return block_at + t * o->transfer;
}

/* One session's file: the transfers written through POSIX calls or MPI-IO. */
struct target {
    const struct options *o;
    const char *path;
    int fd;
    MPI_File fh;
};

/* A shared POSIX file is created by rank 0 before the others open it, as IOR does: two
 * ranks racing to O_CREAT the same file could each see it absent. */
static void open_target(struct target *t, int rank)
{
    if (strcmp(t->o->api, "posix") == 0) {
        int creator = t->o->fpp || rank == 0;
        if (!creator)
            MPI_Barrier(MPI_COMM_WORLD);
        t->fd = open(t->path, creator ? O_CREAT | O_WRONLY : O_WRONLY, 0644);
        if (t->fd < 0)
            fail("cannot open", t->path);
        if (!t->o->fpp && creator)
            MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    if (MPI_File_open(t->o->fpp ? MPI_COMM_SELF : MPI_COMM_WORLD, t->path,
                      MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &t->fh) != MPI_SUCCESS)
        fail("cannot create", t->path);
}

static void write_target(struct target *t, const unsigned char *buf, long long at)
{
    const struct options *o = t->o;
    int ok;
    if (t->fd >= 0)
        ok = pwrite(t->fd, buf, (size_t)o->transfer, at) == (ssize_t)o->transfer;
    else if (o->collective)
        ok = MPI_File_write_at_all(t->fh, at, buf, (int)o->transfer, MPI_BYTE,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS;
    else
        ok = MPI_File_write_at(t->fh, at, buf, (int)o->transfer, MPI_BYTE,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS;
    if (!ok)
        fail("write failed on", t->path);
}

static void close_target(struct target *t)
{
    if (t->fd >= 0) {
        if (t->o->sync && fsync(t->fd) != 0)
            fail("fsync failed on", t->path);
        close(t->fd);
        return;
    }
    if (t->o->sync)
        MPI_File_sync(t->fh);
    MPI_File_close(&t->fh);
}

static void session(const struct options *o, const char *path, int rank, int ranks,
                    unsigned char *buf)
{
    struct target t = {o, path, -1, MPI_FILE_NULL};
    int owner = o->fpp ? rank : 0;
    open_target(&t, rank);
    for (long long s = 0; s < o->segments; s++)
        for (long long k = 0; k < o->block / o->transfer; k++) {
            long long at = offset_of(o, rank, ranks, s, k);
            fill(buf, at, o->transfer, owner);
            write_target(&t, buf, at);
        }
    close_target(&t);
}

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    struct options o = parse(argc, argv);
    unsigned char *buf = malloc((size_t)o.transfer);
    double *took = calloc((size_t)o.files, sizeof *took);
    if (!buf || !took)
        fail("out of memory", NULL);
    char path[4096];
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int f = 0; f < o.files; f++) {
        double began = MPI_Wtime();
        if (o.fpp)
            snprintf(path, sizeof path, "%s/ior_like.%d.%d", o.dir, f, rank);
        else
            snprintf(path, sizeof path, "%s/ior_like.%d", o.dir, f);
        session(&o, path, rank, ranks, buf);
        MPI_Barrier(MPI_COMM_WORLD);   /* as IOR's phases end: every rank's file closed */
        took[f] = MPI_Wtime() - began;
    }
    session_times_print(MPI_Wtime() - start, took, o.files,
                        o.block * o.segments * ranks * o.files);
    free(buf);
    free(took);
    MPI_Finalize();
    return 0;
}
