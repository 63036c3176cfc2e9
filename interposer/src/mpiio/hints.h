/* MPI-IO hints of a file, whichever layer opens it: built from the settings (mpiio, lustre
 * striping), merged into the application's own info, and read back from the open MPI file
 * (what ROMIO or OMPIO kept), with Open MPI's MCA parameters and the reasons a setting did
 * not take effect. */
#pragma once
#include <mpi.h>

#include "core/records.h"
#include "lustre/lustre.h"

struct buf;

/* The hints file->settings ask for, of the blocks its layer takes (a library's own hints
 * reach only its files); MPI_INFO_NULL when none. */
MPI_Info iot_hints_requested(const struct iot_file *file);
/* Copies every hint of `from` into `into` (the ones of `from` win). */
void iot_hints_merge(MPI_Info into, MPI_Info from);
/* {"name": "value", ...}; {} for MPI_INFO_NULL. */
void iot_write_info(struct buf *out, MPI_Info info);
/* `, "openmpi": {...}`: the MCA parameters the settings ask for, as recorded in `applied`
 * (the launcher sets them, not the library). */
void iot_write_applied_mca(struct buf *applied, const struct iot_settings *settings);
/* `"hints": {...}, "mpi_io": {...}, "openmpi": ...` read back from the open file `fh`, its
 * not-effective entries added to file->not_effective; `"hints": null` if the file's info
 * cannot be read. */
void iot_hints_readback(struct iot_file *file, enum iotwin_fs fs, MPI_File fh, struct buf *out);
/* A library above MPI-IO that reads hints of its own from the info the program passes
 * (PnetCDF's nc_*): what it reads back of them is what it uses. */
struct iot_hint_reader {
    const char *name;                  /* "PnetCDF", in the reasons */
    int (*reads)(const char *hint);    /* the hint is the library's */
};
/* The same from `info`, the hints a library above read back from its open MPI file (PnetCDF's
 * ncmpi_inq_file_info: the MPI file's hints and its own); `info` stays the caller's. */
void iot_hints_compare(struct iot_file *file, enum iotwin_fs fs, MPI_Info info,
                       const struct iot_hint_reader *above, struct buf *out);
/* file->applied: `{"hints": {...}, "openmpi": {...}}`, the requested hints and MCA parameters
 * (a file whose library adds nothing of its own to them). */
void iot_hints_record_applied(struct iot_file *file);
/* The hints and MCA parameters asked for a file not opened with MPI-IO: not effective. */
void iot_hints_without_mpio(struct iot_file *file);
/* The file name to open: `name`, or with the "bglockless:" prefix when the settings ask for
 * it and ROMIO has that driver (else the key is listed as not effective). */
const char *iot_bglockless_name(struct iot_file *file, const char *name, char *out, size_t len);
