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
#include "mpiio/capture.h"
#include "mpiio/file.h"
#include "mpiio/layer.h"

#define EXPORT __attribute__((visibility("default")))
/* PMPI_name as another name of the wrapper MPI_name */
#define ALSO_PMPI(name, ret, params) \
    EXPORT ret P##name params __attribute__((alias(#name)));

static struct {
    int ready;
    iot_open_call open;
    iot_close_call close;
    int (*set_view)(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info);
    int (*write)(MPI_File, const void *, int, MPI_Datatype, MPI_Status *);
    int (*write_at)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
    int (*write_all)(MPI_File, const void *, int, MPI_Datatype, MPI_Status *);
    int (*write_at_all)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
    int (*iwrite)(MPI_File, const void *, int, MPI_Datatype, MPI_Request *);
    int (*iwrite_at)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *);
    int (*iwrite_all)(MPI_File, const void *, int, MPI_Datatype, MPI_Request *);
    int (*iwrite_at_all)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *);
    int (*write_all_begin)(MPI_File, const void *, int, MPI_Datatype);
    int (*write_at_all_begin)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype);
    int (*write_shared)(MPI_File, const void *, int, MPI_Datatype, MPI_Status *);
    int (*write_ordered)(MPI_File, const void *, int, MPI_Datatype, MPI_Status *);
    int (*sync)(MPI_File);
} real;

static void init(void)
{
    if (real.ready)
        return;
    real.ready = 1;
    real.open = (iot_open_call)dlsym(RTLD_NEXT, "PMPI_File_open");
    real.close = (iot_close_call)dlsym(RTLD_NEXT, "PMPI_File_close");
    *(void **)&real.set_view = dlsym(RTLD_NEXT, "PMPI_File_set_view");
    *(void **)&real.write = dlsym(RTLD_NEXT, "PMPI_File_write");
    *(void **)&real.write_at = dlsym(RTLD_NEXT, "PMPI_File_write_at");
    *(void **)&real.write_all = dlsym(RTLD_NEXT, "PMPI_File_write_all");
    *(void **)&real.write_at_all = dlsym(RTLD_NEXT, "PMPI_File_write_at_all");
    *(void **)&real.iwrite = dlsym(RTLD_NEXT, "PMPI_File_iwrite");
    *(void **)&real.iwrite_at = dlsym(RTLD_NEXT, "PMPI_File_iwrite_at");
    *(void **)&real.iwrite_all = dlsym(RTLD_NEXT, "PMPI_File_iwrite_all");
    *(void **)&real.iwrite_at_all = dlsym(RTLD_NEXT, "PMPI_File_iwrite_at_all");
    *(void **)&real.write_all_begin = dlsym(RTLD_NEXT, "PMPI_File_write_all_begin");
    *(void **)&real.write_at_all_begin = dlsym(RTLD_NEXT, "PMPI_File_write_at_all_begin");
    *(void **)&real.write_shared = dlsym(RTLD_NEXT, "PMPI_File_write_shared");
    *(void **)&real.write_ordered = dlsym(RTLD_NEXT, "PMPI_File_write_ordered");
    *(void **)&real.sync = dlsym(RTLD_NEXT, "PMPI_File_sync");
    iot_runtime_init();
}

/* The MPI-IO layer's file `fh` is, when the program itself calls on it; else NULL. */
static struct iot_file *programs(MPI_File fh)
{
    init();
    return iot_depth ? NULL : iot_file_of_mpi(fh);
}

/* --- open, view, close ----------------------------------------------------------------------- */

EXPORT int MPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    init();
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

/* --- writes ----------------------------------------------------------------------------------- */

/* One write of the program's, around the real call: what it wrote is counted, and captured
 * at `offset` (in etypes of the view; -1: the individual file pointer; -2: the shared one,
 * which the capture cannot place). */
struct write {
    struct iot_file *file;
    long long from, bytes;
    int collective;
    double start;
};

static struct write write_begin(struct iot_file *file, MPI_Offset offset, int count,
                                MPI_Datatype type, int collective)
{
    struct write w = {file, -1, 0, collective, 0};
    int size = 0;
    iot_depth++;
    MPI_Type_size(type, &size);
    w.bytes = (long long)count * size;
    long long etype = iot_mpiio_etype_bytes(file);   /* 0: capture off */
    if (etype && offset == -1)
        MPI_File_get_position(file->fh, &offset);
    if (etype && offset >= 0)
        w.from = (long long)offset * etype;
    w.start = iot_now();
    return w;
}

static int write_end(struct write *w, int rc)
{
    double end = iot_now();
    w->file->write_s += end - w->start;
    w->file->writes++;
    if (rc == MPI_SUCCESS)
        w->file->bytes += w->bytes;
    if (rc == MPI_SUCCESS && w->from >= 0)
        iot_mpiio_capture_write(w->file, w->from, w->bytes, w->collective,
                                iot_capture_epoch_of(w->start), iot_capture_epoch_of(end));
    else if (rc == MPI_SUCCESS && iot_mpiio_etype_bytes(w->file))
        iot_capture_unsupported(w->file, "a write through the shared file pointer "
                                "(MPI_File_write_shared, _ordered): its place is not known", NULL);
    iot_depth--;
    return rc;
}

/* A wrapper: the real call `call` of `name`, counted as a write at `offset`. */
#define WRITE_WRAPPER(name, params, offset, count, type, collective, call) \
    EXPORT int name params \
    { \
        struct iot_file *file = programs(fh); \
        if (!file) \
            return call; \
        struct write w = write_begin(file, offset, count, type, collective); \
        return write_end(&w, call); \
    } \
    ALSO_PMPI(name, int, params)

WRITE_WRAPPER(MPI_File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype type,
                               MPI_Status *status),
              -1, count, type, 0, real.write(fh, buf, count, type, status))
WRITE_WRAPPER(MPI_File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                  MPI_Datatype type, MPI_Status *status),
              offset, count, type, 0, real.write_at(fh, offset, buf, count, type, status))
WRITE_WRAPPER(MPI_File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype type,
                                   MPI_Status *status),
              -1, count, type, 1, real.write_all(fh, buf, count, type, status))
WRITE_WRAPPER(MPI_File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf,
                                      int count, MPI_Datatype type, MPI_Status *status),
              offset, count, type, 1, real.write_at_all(fh, offset, buf, count, type, status))
WRITE_WRAPPER(MPI_File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype type,
                                MPI_Request *request),
              -1, count, type, 0, real.iwrite(fh, buf, count, type, request))
WRITE_WRAPPER(MPI_File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                   MPI_Datatype type, MPI_Request *request),
              offset, count, type, 0, real.iwrite_at(fh, offset, buf, count, type, request))
WRITE_WRAPPER(MPI_File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype type,
                                    MPI_Request *request),
              -1, count, type, 1, real.iwrite_all(fh, buf, count, type, request))
WRITE_WRAPPER(MPI_File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf,
                                       int count, MPI_Datatype type, MPI_Request *request),
              offset, count, type, 1, real.iwrite_at_all(fh, offset, buf, count, type, request))
WRITE_WRAPPER(MPI_File_write_all_begin, (MPI_File fh, const void *buf, int count,
                                         MPI_Datatype type),
              -1, count, type, 1, real.write_all_begin(fh, buf, count, type))
WRITE_WRAPPER(MPI_File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf,
                                            int count, MPI_Datatype type),
              offset, count, type, 1, real.write_at_all_begin(fh, offset, buf, count, type))
WRITE_WRAPPER(MPI_File_write_shared, (MPI_File fh, const void *buf, int count,
                                      MPI_Datatype type, MPI_Status *status),
              -2, count, type, 0, real.write_shared(fh, buf, count, type, status))
WRITE_WRAPPER(MPI_File_write_ordered, (MPI_File fh, const void *buf, int count,
                                       MPI_Datatype type, MPI_Status *status),
              -2, count, type, 1, real.write_ordered(fh, buf, count, type, status))
