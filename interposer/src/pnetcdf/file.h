/* ncmpi_create, ncmpi_open, ncmpi_begin_indep_data and ncmpi_close as the PnetCDF layer
 * handles them.
 *
 * At the open: the settings of the file (the config's `files` rules on its name) as hints
 * merged into a copy of the info the program passes (the MPI-IO hints, and PnetCDF's own:
 * the `pnetcdf` block's keys, each passed as the hint of its name, or an nc_* hint given in
 * `mpiio.hints`; PnetCDF reads them from the same info);
 * Lustre striping at create; the MPI file PnetCDF opens inside marked as this file
 * (iot_mpiio_expect_file), so that the MPI-IO layer does not report it again. After it: the
 * hints read back with ncmpi_inq_file_info (what the MPI file kept and what PnetCDF took) and
 * compared with the requested ones. At the close: the report, in the MPI-IO files' format with
 * `"api": "pnetcdf"`. */
#pragma once
#include <mpi.h>

typedef int (*iot_nc_open_call)(MPI_Comm, const char *, int, MPI_Info, int *);
typedef int (*iot_nc_id_call)(int);   /* a call on an open file: ncmpi_close, ... */
typedef int (*iot_nc_info_call)(int, MPI_Info *);

/* `create`: ncmpi_create (with `mode` its cmode), else ncmpi_open. */
int iot_pnetcdf_open(iot_nc_open_call open, iot_nc_info_call inq_info, int create,
                     MPI_Comm comm, const char *path, int mode, MPI_Info info, int *ncid);
/* ncmpi_begin_indep_data: PnetCDF opens the file again on MPI_COMM_SELF the first time (1.12),
 * and its independent writes go through that handle: the handle of the same file, alone. */
int iot_pnetcdf_begin_indep_data(iot_nc_id_call begin, int ncid);
int iot_pnetcdf_close(iot_nc_id_call close, int ncid);
/* Forgets the files left open (at unload). */
void iot_pnetcdf_files_free(void);
