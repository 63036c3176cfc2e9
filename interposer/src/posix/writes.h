/* POSIX writes the program makes outside HDF5 and MPI-IO (Fortran or C stdio output files,
 * raw write/pwrite): counted and reported in the run record ("n MiB written outside HDF5 and
 * MPI-IO, not tuned"), nothing applied. A write counts when no hooked call of another layer is
 * in progress (iot_depth), it goes to a regular file, and that file descriptor was never
 * written by HDF5 or the MPI library inside one of their hooked calls. */
#pragma once

struct iot_outside {
    long long bytes, writes, files;   /* files: distinct descriptors written */
    char examples[1024];              /* names of the first of them, one per line */
};

void iot_posix_outside(struct iot_outside *out);
