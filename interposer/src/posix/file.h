/* The files a program writes through POSIX calls itself (not through HDF5 or MPI-IO): its
 * data files, tuned, reported and captured as an HDF5 or MPI-IO file is, with `"api":
 * "posix"`.
 *
 * Every regular file the program opens for writing outside a hooked call of another layer is
 * followed from its open: its settings (the config's `files` rules matched on its name) and
 * their Lustre layout applied at create (posix/layout.c), each write's offset, size and time
 * recorded. At its close it is a data file when a `files` rule of the config named it, or
 * when this process wrote at least IOT_POSIX_DATA_BYTES to it: then it is reported (each
 * process its own file's line: a POSIX open is no collective) and captured (posix/capture.c);
 * any other file (a log, a small text output) is only counted as written outside HDF5 and
 * MPI-IO (posix/writes.c). Descriptors are tracked in a table as HDF5's files are: a program
 * opens and writes its data files from one thread. */
#pragma once
#include <stddef.h>

#include "core/records.h"

#define IOT_POSIX_DATA_BYTES (1LL << 20)
#define IOT_POSIX_FDS 4096   /* descriptors followed; a file on a higher one is not */

struct iot_posix_write {
    long long offset, bytes;  /* bytes 0: a sync (fsync, fdatasync) */
    double start, end;        /* epoch seconds */
};

struct iot_posix_file {
    struct iot_file *file;    /* settings, what was applied and read back, timings */
    int named;                /* a `files` rule of the config matched its name */
    struct iot_posix_write *writes;
    int nwrites;
    size_t write_cap;
    const char *failed;       /* why its writes could not all be recorded, or NULL */
};

/* Before the program's open of `path` with `flags`: its record, the layout applied when it is
 * created (*flags loses O_EXCL when the layout's create made the file). NULL when `flags` do
 * not write or the record cannot be made. */
struct iot_posix_file *iot_posix_before_open(const char *path, int *flags);
/* After that open returned `fd` (-1: it failed; the record is dropped), timed by the hooks'
 * clock. */
void iot_posix_after_open(struct iot_posix_file *pf, int fd, double start, double end);

/* The data-file record of the program's descriptor `fd`, or NULL. */
struct iot_posix_file *iot_posix_file_of(int fd);
/* A write of `bytes` at `offset` that took [start, end] (the hooks' clock). */
void iot_posix_wrote(struct iot_posix_file *pf, long long offset, long long bytes,
                     double start, double end);
/* A sync of the file (fsync, fdatasync: IOR's -e) that took [start, end]: its flush time. */
void iot_posix_synced(struct iot_posix_file *pf, double start, double end);
/* `fd` was written inside a hooked call of another layer (the MPI library's or HDF5's own
 * file, opened where no hook saw it): not the program's, followed no more. */
void iot_posix_disown(int fd);
/* Around the real close of `fd`: the record is finished (reported and captured, or counted as
 * written outside) once the close has returned. */
void iot_posix_closed(int fd, double start, double end);
/* Every file still open is finished as if closed now (at MPI_Finalize or exit). */
void iot_posix_close_all(void);
