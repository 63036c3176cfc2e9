/* A POSIX data file's session in the workload capture (capture/capture.h), in the MPI-IO
 * layer's form for a file without views (sim-models/WORKLOAD.md, api: mpiio and posix): one
 * byte region `bytes@0`, the file's extent as this process wrote it (element 1 byte, one
 * dimension), and each write, in the order made, as one box of it at its offset
 * (independent: a POSIX write waits for no other process). Captured by each process alone, at
 * the close: iotwin merges the processes' sessions of one file, or of one file per process. */
#pragma once

#include "posix/file.h"

void iot_posix_capture_close(struct iot_posix_file *pf, double start, double end);
