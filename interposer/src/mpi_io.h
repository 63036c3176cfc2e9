/* Which MPI-IO implementation handles the program's files, and what steers it.
 *
 * MPICH always writes through ROMIO. Open MPI 4.1 chooses per file between its own OMPIO and
 * its copy of ROMIO (io component romio321), by MCA priority (`--mca io ...`); OMPIO keeps
 * every info key it is given, so MPI_File_get_info echoes ROMIO hints it never reads. OMPIO is
 * told apart by the sub-frameworks it alone opens with a file (fcoll, fbtl: their components
 * are mapped into the process), and its MCA parameters are read through the MPI tool
 * interface (MPI_T control variables). */
#pragma once
#include <stddef.h>
#include <stdio.h>

enum iot_mpi_io {
    IOT_MPI_IO_ROMIO,     /* MPICH's */
    IOT_MPI_IO_ROMIO321,  /* Open MPI's copy of ROMIO */
    IOT_MPI_IO_OMPIO,     /* Open MPI's own */
};

/* The implementation handling the open files (call with a file open, once per read-back). */
enum iot_mpi_io iot_mpi_io_component(void);
/* `"mpi_io": {...}`: the MPI library, the component and how it was told, and under Open MPI
 * the MCA parameters that steer OMPIO, as the program sees them. */
void iot_write_mpi_io(FILE *out, enum iot_mpi_io component);
/* Why OMPIO does not apply the ROMIO hint `hint`, with its OMPIO counterpart; NULL if OMPIO
 * reads the hint itself. */
const char *iot_ompio_ignores(const char *hint);
