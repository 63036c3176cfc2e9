/* The PnetCDF layer in the layers' table (core/layer.h): its files are MPI-IO files. */
#include "pnetcdf/layer.h"

#include "capture/capture.h"
#include "core/config.h"
#include "core/layer.h"
#include "mpiio/layer.h"
#include "pnetcdf/file.h"

static void init(void)
{
    iot_capture_init();
    iot_mpiio_carry(&iot_pnetcdf_layer);
}

const struct iot_layer iot_pnetcdf_layer = {
    .api = "pnetcdf",
    .blocks = IOT_B_OPENMPI | IOT_B_LUSTRE | IOT_B_MPIIO | IOT_B_PNETCDF,
    .init = init,
    .file_new = iot_mpiio_file_new,
    .file_free = iot_mpiio_file_release,
    .report_file = iot_mpiio_report_file,
    .shutdown = iot_pnetcdf_files_free,
};
IOT_REGISTER_LAYER(iot_pnetcdf_layer)
