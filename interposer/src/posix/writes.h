/* POSIX writes the program makes outside HDF5 and MPI-IO to files that are not its data files
 * (posix/file.h): Fortran or C stdio output, logs, small text files. Counted and reported in
 * the run record ("n MiB written outside HDF5 and MPI-IO, not tuned"), nothing applied. A
 * write counts when no hooked call of another layer is in progress (iot_depth), it goes to a
 * regular file, and that file descriptor was never written by HDF5 or the MPI library inside
 * one of their hooked calls. */
#pragma once

struct iot_outside {
    long long bytes, writes, files;   /* files: distinct descriptors written */
    char examples[1024];              /* names of the first of them, one per line */
};

/* A write of the program's on a descriptor that is not a data file's (written <= 0: none). */
void iot_posix_count_outside(int fd, long long written);
/* A file followed as a data file that turned out not to be one, at its close. */
void iot_posix_outside_add(const char *name, long long bytes, long long writes);
/* The descriptor was closed: a new file may take its number. */
void iot_posix_outside_forget(int fd);

/* This process's outside writes; data files still open are finished first. */
void iot_posix_outside(struct iot_outside *out);
