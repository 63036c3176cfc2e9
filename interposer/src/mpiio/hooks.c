/* The interposed MPI-IO calls (PMPI interface). Each is exported under its MPI_ name and, as
 * an alias, its PMPI_ name: Open MPI's Fortran bindings call the PMPI_ functions directly
 * (libmpi_mpifh), MPICH's call the MPI_ ones; the real function is always the MPI library's
 * PMPI_ one. Files HDF5 opens go through here too: their MPI_File_open merges their hints
 * (mpiio/file.c), and every other call on them passes straight through, as do calls made while
 * another hooked call is in progress (iot_depth). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

#include "capture/capture.h"
#include "core/runtime.h"
#include "mpiio/access.h"
#include "mpiio/calls.h"
#include "mpiio/capture.h"
#include "mpiio/file.h"
#include "mpiio/layer.h"
#include "mpiio/requests.h"

#define EXPORT __attribute__((visibility("default")))
/* PMPI_name as another name of the wrapper MPI_name */
#define ALSO_PMPI(name, ret, params) \
    EXPORT ret P##name params __attribute__((alias(#name)));

static struct {
    int ready;
    iot_open_call open;
    iot_close_call close;
    int (*set_view)(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info);
    int (*sync)(MPI_File);
#define REAL_POINTER(name, direction, position, collective, completion, count_type) \
    int(*name) IOT_PARAMS(position, completion, direction, count_type);
    IOT_MPIIO_ACCESS_CALLS(REAL_POINTER)
#undef REAL_POINTER
#define LIBRARY_POINTER(name, params, args) int(*name) params;
    IOT_MPIIO_LIBRARY_CALLS(LIBRARY_POINTER)
#undef LIBRARY_POINTER
#define PROGRESS_POINTER(name, params, args, requests, n) int(*name) params;
    IOT_MPI_PROGRESS_CALLS(PROGRESS_POINTER)
#undef PROGRESS_POINTER
    int (*request_free)(MPI_Request *);
} real;

void iot_mpiio_bind(void)
{
    if (real.ready)
        return;
    real.ready = 1;
    real.open = (iot_open_call)dlsym(RTLD_NEXT, "PMPI_File_open");
    real.close = (iot_close_call)dlsym(RTLD_NEXT, "PMPI_File_close");
    *(void **)&real.set_view = dlsym(RTLD_NEXT, "PMPI_File_set_view");
    *(void **)&real.sync = dlsym(RTLD_NEXT, "PMPI_File_sync");
#define LOOK_UP(name, direction, position, collective, completion, count_type) \
    *(void **)&real.name = dlsym(RTLD_NEXT, "PMPI_File_" #name);
    IOT_MPIIO_ACCESS_CALLS(LOOK_UP)
#undef LOOK_UP
#define LOOK_UP_LIBRARY(name, params, args) *(void **)&real.name = dlsym(RTLD_NEXT, "P" #name);
    IOT_MPIIO_LIBRARY_CALLS(LOOK_UP_LIBRARY)
#undef LOOK_UP_LIBRARY
#define LOOK_UP_PROGRESS(name, params, args, requests, n) \
    *(void **)&real.name = dlsym(RTLD_NEXT, "P" #name);
    IOT_MPI_PROGRESS_CALLS(LOOK_UP_PROGRESS)
#undef LOOK_UP_PROGRESS
    *(void **)&real.request_free = dlsym(RTLD_NEXT, "PMPI_Request_free");
    iot_runtime_init();
}

/* The MPI-IO layer's file `fh` is, when the program itself calls on it; else NULL. */
static struct iot_file *programs(MPI_File fh)
{
    iot_mpiio_bind();
    return iot_depth ? NULL : iot_file_of_mpi(fh);
}

/* --- open, view, close ----------------------------------------------------------------------- */

EXPORT int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    iot_mpiio_bind();
    if (iot_depth && !iot_mpiio_expecting_file())
        return real.open(comm, name, amode, info, fh);
    iot_depth++;
    int rc = iot_mpiio_open(real.open, comm, name, amode, info, fh);
    iot_depth--;
    return rc;
}
ALSO_PMPI(MPI_File_open, int, (MPI_Comm, const char *, int, MPI_Info, MPI_File *))

EXPORT int MPI_File_close(MPI_File *fh)
{
    struct iot_file *file = programs(*fh);
    if (!file)
        return real.close(fh);
    iot_depth++;
    int rc = iot_mpiio_close(real.close, file, fh);
    iot_depth--;
    return rc;
}
ALSO_PMPI(MPI_File_close, int, (MPI_File *))

EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                             MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    struct iot_file *file = programs(fh);
    if (!file)
        return real.set_view(fh, disp, etype, filetype, datarep, info);
    iot_depth++;
    int rc = real.set_view(fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS)
        iot_mpiio_capture_view(file, disp, etype, filetype);
    iot_depth--;
    return rc;
}
ALSO_PMPI(MPI_File_set_view, int, (MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype,
                                   const char *, MPI_Info))

EXPORT int MPI_File_sync(MPI_File fh)
{
    struct iot_file *file = programs(fh);
    if (!file)
        return real.sync(fh);
    iot_depth++;
    double start = iot_now();
    int rc = real.sync(fh);
    double end = iot_now();
    file->flush_s += end - start;
    if (rc == MPI_SUCCESS)
        iot_mpiio_capture_flush(file, iot_capture_epoch_of(start), iot_capture_epoch_of(end));
    iot_depth--;
    return rc;
}
ALSO_PMPI(MPI_File_sync, int, (MPI_File))

/* --- data access: every row of mpiio/calls.h ---------------------------------------------- */

/* MPI_File_<name>: the real call, counted (and a write captured) when the program made it on a
 * file it opened itself (mpiio/access.h). */
#define WRAPPER(name, direction, position, collective, completion, count_type) \
    EXPORT int MPI_File_##name IOT_PARAMS(position, completion, direction, count_type) \
    { \
        static const struct iot_mpiio_call call = { \
            IOT_MPIIO_##direction, IOT_MPIIO_##position, collective, IOT_MPIIO_##completion}; \
        struct iot_file *file = programs(fh); \
        if (!file) \
            return real.name IOT_ARGS(position, completion); \
        struct iot_mpiio_access access = iot_mpiio_access_begin( \
            file, &call, IOT_OFFSET(position, completion), IOT_COUNT_##completion, \
            IOT_TYPE_##completion, IOT_REQUEST_##completion); \
        return iot_mpiio_access_end(&access, real.name IOT_ARGS(position, completion)); \
    } \
    ALSO_PMPI(MPI_File_##name, int, IOT_PARAMS(position, completion, direction, count_type))
IOT_MPIIO_ACCESS_CALLS(WRAPPER)

/* --- the library's own writes: IOT_MPIIO_LIBRARY_CALLS, IOT_MPI_PROGRESS_CALLS -------------- */

#define LIBRARY_WRAPPER(name, params, args) \
    EXPORT int name params \
    { \
        iot_mpiio_bind(); \
        iot_depth++; \
        int rc = real.name args; \
        iot_depth--; \
        return rc; \
    }
#define LIBRARY_WRAPPER_AND_PMPI(name, params, args) \
    LIBRARY_WRAPPER(name, params, args) \
    ALSO_PMPI(name, int, params)
IOT_MPIIO_LIBRARY_CALLS(LIBRARY_WRAPPER_AND_PMPI)

/* A wait or test: the library's, and its time on the program's file requests theirs. */
#define PROGRESS_WRAPPER(name, params, args, requests, n) \
    EXPORT int name params \
    { \
        iot_mpiio_bind(); \
        struct iot_mpiio_progress progress = iot_mpiio_progress_begin(requests, n); \
        iot_depth++; \
        int rc = real.name args; \
        iot_depth--; \
        iot_mpiio_progress_end(&progress, requests); \
        return rc; \
    }
IOT_MPI_PROGRESS_CALLS(PROGRESS_WRAPPER)

/* A file request the program frees instead of waiting for is no longer followed. */
EXPORT int MPI_Request_free(MPI_Request *request)
{
    iot_mpiio_bind();
    iot_mpiio_request_freed(*request);
    return real.request_free(request);
}
