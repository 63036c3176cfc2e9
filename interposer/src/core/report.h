/* The per-file JSON report: reduced over the processes that opened the file, at MPI_Finalize
 * (reduction.c: no collective of the library's while the program runs), and appended by the
 * leader, its communicator's rank 0, to $IOTWIN_REPORT as one line (report.c). Schema:
 * interposer/README.md. */
#pragma once
#include "core/records.h"

struct iot_run {
    const char *config_path;   /* NULL: no IOTWIN_CONFIG */
    const char *config_error;  /* NULL: config loaded */
    const char *report_path;   /* NULL: no IOTWIN_REPORT, nothing written */
};

/* The file has closed: takes its record over (detached from the open files) and reports it,
 * now for a file of one process, else at MPI_Finalize (held until then: a few KiB a file).
 * Without $IOTWIN_REPORT (given to every rank or to none, as launchers' environment options
 * give it) nothing is held: `iotwin apply`'s runs make no collective of the library's. */
void iot_report_close(struct iot_file *file, const struct iot_run *run);
/* Reports the files held: `mpi` (at MPI_Finalize), reduced over MPI_COMM_WORLD in one
 * MPI_Comm_dup, one MPI_Reduce_scatter_block and a message from each process to each leader
 * of its files; else (at exit without MPI_Finalize) each process's own figures, as its own
 * lines ("ranks": 1). */
void iot_report_settle_all(const struct iot_run *run, int mpi);
/* Adds the file's line (reduced over `ranks` ranks) to the report: held with the process's
 * other lines until iot_report_flush (or until they fill 64 KiB). */
void iot_report_write(struct iot_file *file, const struct iot_run *run, int ranks);
/* Appends the held lines to the report in one write (at the run's end, before its record). */
void iot_report_flush(void);

struct buf;
/* `"file": "...", "api": "hdf5", "how": "create"`: the file as every JSON line names it. */
/* `, "key": {"calls": n, "bytes": n, "seconds": s}`: the reads or writes of a file or part. */
void iot_put_io(struct buf *out, const char *key, long long calls, long long bytes,
                double seconds);
void iot_put_file_identity(struct buf *out, const struct iot_file *file);

/* "top,files[0]" -> ["top", "files[0]"]: the labels of the config's blocks that applied. */
void iot_put_labels(struct buf *out, const char *matched);

/* Appends one line with a single write (O_APPEND: lines of several processes stay whole). */
int iot_append_line(const char *path, const char *text, size_t len);
