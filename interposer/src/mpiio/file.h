/* MPI_File_open and MPI_File_close as the MPI-IO layer handles them.
 *
 * A file the program opens itself (not HDF5): its settings (matched by the config's `files`
 * rules on its name, as an HDF5 file's) applied at the open: the hints merged into a copy of
 * the program's info, Lustre striping set at create, the bglockless prefix; read back from
 * the open file with MPI_File_get_info; captured; reported at close, in the report format of
 * HDF5 files with `"api": "mpiio"`.
 *
 * The MPI file a layer above opens (HDF5 inside H5Fcreate / H5Fopen): that layer says which
 * of its files it is (iot_mpiio_expect_file); its hints are merged in the same way, and its
 * communicator and handle are recorded in that file. */
#pragma once
#include <mpi.h>

#include "core/records.h"

typedef int (*iot_open_call)(MPI_Comm, const char *, int, MPI_Info, MPI_File *);
typedef int (*iot_close_call)(MPI_File *);

/* The file of a layer above (HDF5's) whose MPI file the next MPI_File_open opens (NULL: none);
 * `hints`: merge the file's requested hints (0: open as that layer asks). */
void iot_mpiio_expect_file(struct iot_file *file, int hints);
int iot_mpiio_expecting_file(void);

/* The library's communicator for `file` (its settings resolved) opened on `comm`
 * (core/comms.h), where anything needs one: the report's reduction, the capture's, rank 0
 * creating the file with its Lustre layout. Else MPI_COMM_NULL, and no MPI_Comm_dup: a run
 * preloaded as `iotwin apply` does (no report) makes no collective of the library's. */
MPI_Comm iot_mpiio_comm_for(const struct iot_file *file, MPI_Comm comm);

int iot_mpiio_open(iot_open_call open, MPI_Comm comm, const char *name, int amode,
                   MPI_Info info, MPI_File *fh);
/* `file`: the MPI-IO layer's record of *fh. */
int iot_mpiio_close(iot_close_call close, struct iot_file *file, MPI_File *fh);
