/* The JSON line of a program of many file sessions (file_sessions, ior_like), as the kernels
 * print theirs (kernels/README.md): printed by rank 0 of MPI_COMM_WORLD, the slowest rank's
 * time from the first open to the last close (`seconds`, this rank's) and of each of `files`
 * sessions (`took`, this rank's), the bytes all ranks wrote and their rate. Collective. */
#pragma once

void session_times_print(double seconds, const double *took, int files, long long bytes);
