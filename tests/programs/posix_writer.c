/* A program writing its data through POSIX calls, as IOR's POSIX back end does (`ior -a
 * POSIX`), for the interposer's POSIX layer (tests/interposer/test_interposer_posix.py):
 *
 *   posix_writer DIR fpp|shared [TRANSFERS [TRANSFER_BYTES]]
 *
 * Each rank writes one block of TRANSFERS + 1 transfers (default 8 of 256 KiB): TRANSFERS
 * with pwrite at their offsets, then one with writev (two halves) at the file position after
 * an lseek. `fpp`: file per process, DIR/data.<rank>, the block at offset 0 (`ior -F`);
 * `shared`: one file DIR/data.shared, rank r's block at r * block (IOR's segment layout),
 * every rank opening it with O_CREAT. Rank 0 also writes a small log (DIR/log.txt) with
 * write: output, not data. Byte b of a data file holds (b * 7 + 3) mod 251, so the file's
 * bytes say where every write landed. Prints one JSON line: ranks, block bytes, files. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static void check(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void fill(unsigned char *bytes, long long offset, long long n)
{
    for (long long i = 0; i < n; i++)
        bytes[i] = (unsigned char)(((offset + i) * 7 + 3) % 251);
}

int main(int argc, char **argv)
{
    int rank, ranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc < 3 || (strcmp(argv[2], "fpp") != 0 && strcmp(argv[2], "shared") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: posix_writer DIR fpp|shared [TRANSFERS [TRANSFER_BYTES]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int shared = strcmp(argv[2], "shared") == 0;
    long long transfers = argc > 3 ? atoll(argv[3]) : 8, size = argc > 4 ? atoll(argv[4]) : 262144;
    long long block = (transfers + 1) * size, base = shared ? rank * block : 0;
    char path[4096];
    unsigned char *bytes = malloc((size_t)size);
    check(bytes != NULL && transfers >= 0 && size >= 2, "arguments");
    if (shared)
        snprintf(path, sizeof path, "%s/data.shared", argv[1]);
    else
        snprintf(path, sizeof path, "%s/data.%d", argv[1], rank);

    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    check(fd >= 0, path);
    for (long long i = 0; i < transfers; i++) {
        long long offset = base + i * size;
        fill(bytes, offset, size);
        check(pwrite(fd, bytes, (size_t)size, offset) == size, "pwrite");
    }
    long long last = base + transfers * size;
    check(lseek(fd, last, SEEK_SET) == last, "lseek");
    fill(bytes, last, size);
    struct iovec halves[2] = {{bytes, (size_t)(size / 2)},
                              {bytes + size / 2, (size_t)(size - size / 2)}};
    check(writev(fd, halves, 2) == size, "writev");
    check(close(fd) == 0, "close");

    if (rank == 0) {
        snprintf(path, sizeof path, "%s/log.txt", argv[1]);
        int log = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        const char line[] = "posix_writer: done\n";
        check(log >= 0 && write(log, line, sizeof line - 1) == (ssize_t)(sizeof line - 1), path);
        close(log);
        printf("{\"ranks\": %d, \"block\": %lld, \"mode\": \"%s\"}\n", ranks, block, argv[2]);
    }
    free(bytes);
    MPI_Finalize();
    return 0;
}
