#include "mpiio_family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int family_rank, family_ranks;
static const char *program = "mpiio family";
static double late_s;   /* --late */

MPI_Offset family_offset(int k, long long block)
{
    return ((MPI_Offset)k * family_ranks + family_rank) * block;
}

void family_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "%s: %s failed\n", program, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

void family_seek(MPI_File fh, int k, long long block)
{
    family_check(MPI_File_seek(fh, family_offset(k, block), MPI_SEEK_SET), "MPI_File_seek");
}

void family_seek_shared(MPI_File fh, int k, long long block)
{
    family_check(MPI_File_seek_shared(fh, (MPI_Offset)k * family_ranks * block, MPI_SEEK_SET),
                 "MPI_File_seek_shared");
}

static void compute(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

void family_wait(int rc, MPI_Request *request, const char *what)
{
    family_check(rc, what);
    if (late_s > 0 && family_rank == family_ranks - 1)
        compute(late_s);
    family_check(MPI_Wait(request, MPI_STATUS_IGNORE), "MPI_Wait");
}

void family_in_turn(void (*turn)(MPI_File, int, const char *, long long), MPI_File fh, int k,
                    const char *buf, long long block)
{
    for (int r = 0; r < family_ranks; r++) {
        if (r == family_rank)
            turn(fh, k, buf, block);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void pattern(char *buf, long long block, int k)
{
    for (long long i = 0; i < block; i++)
        buf[i] = (char)('a' + (family_rank * 7 + k + i) % 26);
}

/* Aborts the run: `text` is not what `what` says it must be. */
static void usage_error(const char *what, const char *text)
{
    fprintf(stderr, "%s: %s, got \"%s\"\n", program, what, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static long long number(const char *text, const char *what)
{
    char *end, message[64];
    long long n = strtoll(text, &end, 10);
    if (*end || n < 1) {
        snprintf(message, sizeof message, "%s must be a positive integer", what);
        usage_error(message, text);
    }
    return n;
}

/* Takes the options out of argv (--no-check, --late SECONDS); returns whether to check. */
static int options(int *argc, char **argv)
{
    int check = 1, kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--no-check") == 0) {
            check = 0;
        } else if (strcmp(argv[i], "--late") == 0 && i + 1 < *argc) {
            char *end;
            late_s = strtod(argv[++i], &end);
            if (*end || !(late_s >= 0))
                usage_error("--late must be seconds, 0 or more", argv[i]);
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return check;
}

int family_main(int argc, char **argv, const struct family *family)
{
    char path[4096];
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &family_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &family_ranks);
    program = family->name;
    int check = options(&argc, argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [BLOCK [ROUNDS]] [--no-check] [--late SECONDS]\n",
                program);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long long block = argc > 2 ? number(argv[2], "BLOCK") : 4096;
    int rounds = argc > 3 ? (int)number(argv[3], "ROUNDS") : family->rounds;
    char *buf = malloc((size_t)block), *back = malloc((size_t)block);
    if (!buf || !back)
        family_check(MPI_ERR_NO_MEM, "malloc");
    snprintf(path, sizeof path, "%s/family.dat", argv[1]);
    family_check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                               MPI_INFO_NULL, &fh), "MPI_File_open");
    for (int k = 0; k < rounds; k++) {
        pattern(buf, block, k);
        family->write_round(fh, k, buf, block);
    }
    family_check(MPI_File_sync(fh), "MPI_File_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < rounds; k++) {
        pattern(buf, block, k);
        memset(back, 0, (size_t)block);
        family->read_round(fh, k, back, block);
        if (check && memcmp(buf, back, (size_t)block) != 0) {
            fprintf(stderr, "%s: round %d read back differs\n", program, k);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    family_check(MPI_File_close(&fh), "MPI_File_close");
    free(buf);
    free(back);
    MPI_Finalize();
    return 0;
}
