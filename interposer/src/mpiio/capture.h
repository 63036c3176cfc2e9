/* An MPI-IO file session in the workload capture (capture/capture.h).
 *
 * Each rank records its file views and its writes (the view, the byte range of the view's
 * data stream, collective or not, when) and its syncs. At close the ranks agree, in three
 * MPI_Allreduce, on the file's regions: a subarray view every rank set alike (same
 * displacement, element and global sizes; each rank its own block) is one region at its
 * displacement, a dataset of the global array's shape (axis 0 grown by the tiles written);
 * the bytes between and after them are byte regions (1-D, element 1 byte). Datasets laid end
 * to end in offset order are the file's bytes at their offsets (sim-models/WORKLOAD.md,
 * api: mpiio). A write through a subarray view is boxes of its region (one box for a whole
 * block: a regular grid of blocks); any other write is its view's runs in a byte region. When
 * a write's runs would cross into a subarray region, the whole file is bytes. */
#pragma once
#include <mpi.h>

#include "core/records.h"

void iot_mpiio_capture_open(struct iot_file *file, double start, double end);
/* A view was set (MPI_File_set_view) on handle `fh` of the file (file->fh or file->fh_alone:
 * each handle has its own view). */
void iot_mpiio_capture_view(struct iot_file *file, MPI_File fh, MPI_Offset disp,
                            MPI_Datatype etype, MPI_Datatype filetype);
/* The bytes of an etype offset of handle `fh`'s view (for explicit-offset writes and the
 * individual file pointer); 0 when capture is off. */
long long iot_mpiio_etype_bytes(const struct iot_file *file, MPI_File fh);
/* A write of `bytes` from stream byte `from` of handle `fh`'s view. */
void iot_mpiio_capture_write(struct iot_file *file, MPI_File fh, long long from,
                             long long bytes, int collective, double start, double end);
/* A write of `bytes` in rank order through the shared file pointer (MPI_File_write_ordered,
 * _ordered_begin): its place is rank 0's start `rank0_from` (on rank 0) plus the bytes of the
 * lower ranks' writes of the same call, summed at close. */
void iot_mpiio_capture_ordered(struct iot_file *file, MPI_File fh, long long rank0_from,
                               long long bytes, double start, double end);
void iot_mpiio_capture_flush(struct iot_file *file, double start, double end);
/* How many writes and syncs the file's capture holds (the last one's index + 1). */
int iot_mpiio_capture_ops(const struct iot_file *file);
/* Write `op`, posted by a nonblocking call, completed at `end` (in MPI_Wait or MPI_Test). */
void iot_mpiio_capture_completed(struct iot_file *file, int op, double end);
/* After the real close: regions agreed, writes turned into selections, gathered and written
 * (collective on the file's communicator). */
void iot_mpiio_capture_close(struct iot_file *file, double start, double end);
