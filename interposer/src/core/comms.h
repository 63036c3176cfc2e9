/* Communicators for the interposer's own collectives (a file's report, its capture).
 *
 * One duplicate per distinct group of processes, made the first time a file is opened on
 * that group (a file open is collective over it, so every member takes the same branch: they
 * all saw the same earlier opens on it) and kept until MPI_Finalize: a program that opens
 * many files on one communicator pays one MPI_Comm_dup, not one per file. */
#pragma once
#include <mpi.h>

/* Ours for files opened on `app`; MPI_COMM_NULL for a single process (nothing to reduce). */
MPI_Comm iot_comm_for(MPI_Comm app);
/* The communicators made so far, in the order they were made. */
int iot_comms_count(void);
MPI_Comm iot_comms_at(int index);
/* Frees them (before MPI_Finalize). */
void iot_comms_free(void);
