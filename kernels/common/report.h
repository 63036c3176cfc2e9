/* The timed phases of a run and the JSON line that reports them (kernels/README.md). Times
 * are taken on rank 0 after a barrier, so each phase covers the slowest rank. */
#ifndef IOTWIN_REPORT_H
#define IOTWIN_REPORT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "options.h"

typedef struct {
    double open_s, write_s, sync_s, close_s;
} phase_times;

/* A barrier over comm, then MPI_Wtime: the start of the next phase. */
double phase_clock(MPI_Comm comm);
double phase_total(const phase_times *t);
void phase_add(phase_times *sum, const phase_times *t);
/* MB/s (1e6 bytes), 0 when no time was measured. */
double rate_mbs(uint64_t bytes, double seconds);

/* `{"kernel": ..., "ranks": ..., "file": ..., "bytes": ...` (the line stays open). */
void report_begin(FILE *out, const char *kernel, uint64_t ranks, const char *file,
                  uint64_t bytes);
/* `, "open_s": ... "total_s": ..., "rate_mbs": ...` */
void report_phases(FILE *out, const phase_times *t, uint64_t bytes);
/* `, "params": {...}`: the options with a report_as name, the transfer mode (when the whole
 * run has one; NULL: none), `extra` JSON members (the version of a library other than HDF5;
 * NULL: none) and the HDF5 version. */
void report_params(FILE *out, const kernel_option *const tables[], size_t ntables,
                   const char *transfer, const char *extra);
/* `"library": "VERSION"`, VERSION a library's version string up to its first space (as
 * nc_inq_libvers and ncmpi_inq_libvers give it): an `extra` member, in a static buffer. */
const char *report_version_member(const char *library, const char *version);

#endif
