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
 * communicator and handle are recorded in that file; a second open of it while it is open
 * is this process's own handle of it (file->fh_alone: PnetCDF's independent data mode opens
 * the file again on MPI_COMM_SELF), its writes the file's. */
#pragma once
#include <mpi.h>

#include "core/records.h"

typedef int (*iot_open_call)(MPI_Comm, const char *, int, MPI_Info, MPI_File *);
typedef int (*iot_close_call)(MPI_File *);

/* The file of a layer above (HDF5's) whose MPI file the next MPI_File_open opens (NULL: none);
 * `hints`: merge the file's requested hints (0: open as that layer asks). */
void iot_mpiio_expect_file(struct iot_file *file, int hints);
int iot_mpiio_expecting_file(void);

/* The group of processes `file` (its settings resolved) is opened by on `comm`, when there is a
 * report (core/comms.h: no collective), and the library's communicator over it where a file
 * needs one during the run: the capture's, rank 0 creating the file with its Lustre layout
 * (else none, and no MPI_Comm_dup). */
void iot_mpiio_opened_on(struct iot_file *file, MPI_Comm comm);

int iot_mpiio_open(iot_open_call open, MPI_Comm comm, const char *name, int amode,
                   MPI_Info info, MPI_File *fh);
/* `file`: the MPI-IO layer's record of *fh (its handle alone closed: the file stays open). */
int iot_mpiio_close(iot_close_call close, struct iot_file *file, MPI_File *fh);
/* After a layer's real close of `file` (begun at `start`, on the capture's clock at `epoch`):
 * its close time, its capture and its report; MPI-IO's and PnetCDF's closes alike. */
void iot_mpiio_closed(struct iot_file *file, double start, double epoch);
