/* What the MPI-IO family programs share (mpiio_<family>.c): each writes one file, family.dat,
 * through one family of MPI-IO calls, then reads it back through the same family and checks
 * every byte. The layout is the same for every family: in round k (of ROUNDS), rank r writes
 * BLOCK bytes of its own pattern at file offset (k * ranks + r) * BLOCK
 * (tests/interposer/test_interposer_mpiio_families.py checks the capture against it).
 *   mpiio_<family> DIR [BLOCK [ROUNDS]] [--no-check] [--late SECONDS]
 * (BLOCK: 4096 bytes unless given)
 * --no-check: what is read back is not compared. Debian's MPICH 4.0.2 returns other bytes
 * than the file holds from MPI_File_read_ordered (and _begin, _c) once any ROMIO hint is set
 * (ROMIO_HINTS or an info; the file itself is right), which a tuning run sets.
 * --late SECONDS: the last rank computes (sleeps) that long between posting each nonblocking
 * call and waiting for it (family_wait), as a program overlapping computation with its I/O
 * does: the other ranks' waits for a nonblocking collective then last at least that long. */
#pragma once
#include <mpi.h>

struct family {
    const char *name;
    int rounds;   /* the default ROUNDS: each call of the family at least once */
    /* round k's block `buf` (`block` bytes) written, and read back into `buf` */
    void (*write_round)(MPI_File fh, int k, const char *buf, long long block);
    void (*read_round)(MPI_File fh, int k, char *buf, long long block);
};

extern int family_rank, family_ranks;

/* Where round k's block of this rank starts in the file. */
MPI_Offset family_offset(int k, long long block);
/* Aborts the run, naming `what`, unless `rc` is MPI_SUCCESS. */
void family_check(int rc, const char *what);
/* The individual file pointer to this rank's block of round k. */
void family_seek(MPI_File fh, int k, long long block);
/* The shared file pointer to round k's first block (collective). */
void family_seek_shared(MPI_File fh, int k, long long block);
/* Waits for *request, posted by the call `what` that returned `rc` (read once it returned);
 * on the last rank after --late's computation. */
void family_wait(int rc, MPI_Request *request, const char *what);
/* Each rank in turn, in rank order (a barrier between turns): `turn` on this rank's. */
void family_in_turn(void (*turn)(MPI_File, int, const char *, long long), MPI_File fh, int k,
                    const char *buf, long long block);
int family_main(int argc, char **argv, const struct family *family);
