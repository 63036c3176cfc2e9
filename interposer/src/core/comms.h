/* The groups of processes the program opens files on, and the library's communicators over
 * them for its own collectives during the run (a file's capture, rank 0 creating a file with
 * its Lustre layout).
 *
 * A group is known by its members: one entry per distinct group, found with
 * MPI_Group_compare, no collective. The report needs no communicator while the program runs:
 * a file's figures are held until MPI_Finalize and reduced there over MPI_COMM_WORLD
 * (core/reduction.c), each record keyed by its group (members, leader) and its place among
 * that group's files.
 *
 * A communicator is one duplicate per group, made the first time a file opened on the group
 * needs one (a file open is collective over the group, and whether a file needs one is the same
 * on every member: capture is on for the whole run, a layout comes from the file's settings),
 * and kept until MPI_Finalize: a program that opens many files on one communicator pays one
 * MPI_Comm_dup, not one per file. */
#pragma once
#include <mpi.h>

struct iot_group {
    int size;
    int leader;                   /* the MPI_COMM_WORLD rank of its rank 0 */
    unsigned long long members;   /* a hash of its members' MPI_COMM_WORLD ranks, in its order */
    long long reported;           /* its files this process has handed to the report so far */
};

/* For a file opened on `app`, from one search of the groups, each of these that is asked for
 * (its pointer not NULL):
 * - *group, the group of `app`; NULL for one process, or for a group not inside MPI_COMM_WORLD
 *   (a spawned job's): its files are reported by each process alone;
 * - *comm, the library's communicator over the group, as iot_comm_for. */
void iot_group_and_comm(MPI_Comm app, struct iot_group **group, MPI_Comm *comm);
/* The library's communicator over the group of `app`; MPI_COMM_NULL for one process. */
MPI_Comm iot_comm_for(MPI_Comm app);
/* Frees the groups and communicators (before MPI_Finalize). */
void iot_comms_free(void);
