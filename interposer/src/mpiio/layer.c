/* The MPI-IO layer in the layers' table (core/layer.h): files the program opens itself. */
#include "mpiio/layer.h"

#include "capture/capture.h"
#include "core/config.h"
#include "core/layer.h"
#include "core/report.h"
#include "core/text.h"
#include "mpiio/files.h"
#include "mpiio/requests.h"

static int has_handle(const struct iot_file *file, const void *fh)
{
    return file->fh == *(const MPI_File *)fh;
}

static const struct iot_layer *carried[4];
static int ncarried;

void iot_mpiio_carry(const struct iot_layer *layer)
{
    for (int i = 0; i < ncarried; i++)
        if (carried[i] == layer)
            return;
    if (ncarried < (int)(sizeof carried / sizeof carried[0]))
        carried[ncarried++] = layer;
}

struct iot_file *iot_file_of_mpi(MPI_File fh)
{
    struct iot_file *file = iot_file_find(&iot_mpiio_layer, has_handle, &fh);
    for (int i = 0; !file && i < ncarried; i++)
        file = iot_file_find(carried[i], has_handle, &fh);
    return file;
}

void *iot_mpiio_file_new(struct iot_file *file)
{
    file->driver = "mpiio";
    file->collective = 1;
    return NULL;   /* its capture's state, made when capture is on (mpiio/capture.c) */
}

void iot_mpiio_file_release(struct iot_file *file)
{
    iot_mpiio_requests_of_file_forget(file);
    iot_capture_free(file->capture);
    iot_mpiio_file_free(file->state);
}

/* The report's fields of the HDF5 library, null for an MPI-IO file; the program's reads of
 * the file (mpiio/access.h), as a dataset's writes are reported. */
void iot_mpiio_report_file(struct buf *out, const struct iot_file *file)
{
    PUT(out, ", \"hdf5_version\": null, \"async_api\": null");
    iot_put_io(out, "reads", file->reads, file->read_bytes, file->read_s);
}

static void init(void)
{
    iot_capture_init();
    iot_mpiio_bind();
}

const struct iot_layer iot_mpiio_layer = {
    .api = "mpiio",
    .blocks = IOT_B_OPENMPI | IOT_B_LUSTRE | IOT_B_MPIIO,
    .init = init,
    .file_new = iot_mpiio_file_new,
    .file_free = iot_mpiio_file_release,
    .report_file = iot_mpiio_report_file,
};
IOT_REGISTER_LAYER(iot_mpiio_layer)
