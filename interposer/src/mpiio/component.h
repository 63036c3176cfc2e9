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

#include "key_table.h"

struct buf;

enum iot_mpi_io {
    IOT_MPI_IO_ROMIO,     /* MPICH's */
    IOT_MPI_IO_ROMIO321,  /* Open MPI's copy of ROMIO */
    IOT_MPI_IO_OMPIO,     /* Open MPI's own */
};

/* The MCA parameters of the config schema (keys with an `mca` name), as MPI_Init took them;
 * indexed by key id. */
struct iot_mca {
    int known[IOT_NKEYS];   /* the library has a parameter of that name */
    int number[IOT_NKEYS];  /* its value is a number, not a string */
    char text[IOT_NKEYS][64];
};

/* The implementation handling the open files (call with a file open: read with the first one,
 * as the MCA parameters are). */
enum iot_mpi_io iot_mpi_io_component(void);
/* Its name as the io MCA parameter spells it (MPICH's: "romio"). */
const char *iot_mpi_io_name(enum iot_mpi_io component);
/* Reads the MCA parameters through the MPI tool interface (none under MPICH's ROMIO). */
void iot_mca_read(struct iot_mca *mca, enum iot_mpi_io component);
/* `"mpi_io": {...}`: the MPI library, the component and how it was told, and under Open MPI
 * the MCA parameters that steer OMPIO, as the program sees them. */
void iot_write_mpi_io(struct buf *out, enum iot_mpi_io component, const struct iot_mca *mca);
/* Why OMPIO does not apply the ROMIO hint `hint`, with its OMPIO counterpart; NULL if OMPIO
 * reads the hint itself. */
const char *iot_ompio_ignores(const char *hint);
/* Why OMPIO does the opposite of what `hint`=`value` asks; NULL if it does what it asks. */
const char *iot_ompio_misreads(const char *hint, const char *value);
