/* A preload that hooks the calls the interposer hooks on the way of the overhead bench's
 * programs (HDF5's file and dataset calls, MPI-IO's opens, views, reads and writes, POSIX
 * writes) and passes each straight on: what hooking alone costs, the floor the interposer's
 * own work sits on (bench/interposer_overhead.py --library
 * build/tests/programs/libhook_passthrough.so). */
#define _GNU_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mpiio/calls.h"
#include "next_symbol.h"

#define EXPORT __attribute__((visibility("default")))

#define PASS(type, name, params, args) \
    EXPORT type name params \
    { \
        return NEXT_SYMBOL(name) args; \
    }

PASS(hid_t, H5Fcreate, (const char *n, unsigned f, hid_t c, hid_t a), (n, f, c, a))
PASS(hid_t, H5Fopen, (const char *n, unsigned f, hid_t a), (n, f, a))
PASS(herr_t, H5Fflush, (hid_t id, H5F_scope_t s), (id, s))
PASS(herr_t, H5Fclose, (hid_t id), (id))
PASS(hid_t, H5Dcreate2, (hid_t l, const char *n, hid_t t, hid_t s, hid_t lc, hid_t dc, hid_t da),
     (l, n, t, s, lc, dc, da))
PASS(herr_t, H5Dwrite, (hid_t d, hid_t m, hid_t ms, hid_t fs, hid_t x, const void *b),
     (d, m, ms, fs, x, b))
PASS(herr_t, H5Dclose, (hid_t id), (id))
PASS(herr_t, H5Pclose, (hid_t id), (id))
PASS(herr_t, H5Oclose, (hid_t id), (id))

PASS(int, PMPI_File_open, (MPI_Comm c, const char *n, int m, MPI_Info i, MPI_File *f),
     (c, n, m, i, f))
PASS(int, PMPI_File_close, (MPI_File *f), (f))
PASS(int, PMPI_File_set_view, (MPI_File f, MPI_Offset d, MPI_Datatype e, MPI_Datatype t,
                               const char *r, MPI_Info i), (f, d, e, t, r, i))
/* every MPI-IO data access call the interposer hooks, from its own list */
#define PASS_ACCESS(name, direction, position, collective, completion, count_type) \
    PASS(int, PMPI_File_##name, IOT_PARAMS(position, completion, direction, count_type), \
         IOT_ARGS(position, completion))
IOT_MPIIO_ACCESS_CALLS(PASS_ACCESS)

PASS(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n))
PASS(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o))
PASS(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o))
PASS(ssize_t, writev, (int fd, const struct iovec *v, int n), (fd, v, n))
