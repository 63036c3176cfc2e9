/* The interposed PnetCDF calls: the opens, the entry to independent data mode and the close
 * (pnetcdf/file.h). The data calls are
 * not hooked: their MPI-IO calls reach the MPI-IO hooks (pnetcdf/layer.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

#include "core/runtime.h"
#include "pnetcdf/file.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
    int ready;
    iot_nc_open_call create, open;
    iot_nc_id_call close, begin_indep_data;
    iot_nc_info_call inq_file_info;
} real;

static void init(void)
{
    if (real.ready)
        return;
    real.ready = 1;
    *(void **)&real.create = dlsym(RTLD_NEXT, "ncmpi_create");
    *(void **)&real.open = dlsym(RTLD_NEXT, "ncmpi_open");
    *(void **)&real.close = dlsym(RTLD_NEXT, "ncmpi_close");
    *(void **)&real.begin_indep_data = dlsym(RTLD_NEXT, "ncmpi_begin_indep_data");
    *(void **)&real.inq_file_info = dlsym(RTLD_NEXT, "ncmpi_inq_file_info");
    iot_runtime_init();
}

/* ncmpi_create (`create`) or ncmpi_open, through the layer unless inside another hooked call. */
static int open_file(int create, MPI_Comm comm, const char *path, int mode, MPI_Info info,
                     int *ncidp)
{
    init();
    iot_nc_open_call call = create ? real.create : real.open;
    if (iot_depth)
        return call(comm, path, mode, info, ncidp);
    iot_depth++;
    int rc = iot_pnetcdf_open(call, real.inq_file_info, create, comm, path, mode, info, ncidp);
    iot_depth--;
    return rc;
}

EXPORT int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp)
{
    return open_file(1, comm, path, cmode, info, ncidp);
}

EXPORT int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp)
{
    return open_file(0, comm, path, omode, info, ncidp);
}

/* A call on an open file (`*call`, found at init), through the layer's `handle` unless inside
 * another hooked call. */
static int on_file(iot_nc_id_call *call, int (*handle)(iot_nc_id_call, int), int ncid)
{
    init();
    if (iot_depth)
        return (*call)(ncid);
    iot_depth++;
    int rc = handle(*call, ncid);
    iot_depth--;
    return rc;
}

EXPORT int ncmpi_begin_indep_data(int ncid)
{
    return on_file(&real.begin_indep_data, iot_pnetcdf_begin_indep_data, ncid);
}

EXPORT int ncmpi_close(int ncid)
{
    return on_file(&real.close, iot_pnetcdf_close, ncid);
}
