/* An MPI file view as the capture needs it: where each byte of the stream a rank writes
 * through it lands in the file. Read from the view's datatypes with MPI_Type_get_envelope and
 * MPI_Type_get_contents when the view is set:
 *  - a subarray filetype (MPI_Type_create_subarray of a contiguous element type) is kept as
 *    its sizes, subsizes and starts (in C order: a Fortran-order one's axes reversed), so that
 *    a rank's block is a box of the global array;
 *  - any other filetype is flattened into (offset, length) runs of one instance, in typemap
 *    order (adjacent runs merged); the view repeats it every extent from the displacement.
 * MPI requires a filetype's displacements to be non-decreasing, so the runs are in file order. */
#pragma once
#include <mpi.h>
#include <stddef.h>

#define IOT_VIEW_MAX_AXES 32
#define IOT_VIEW_MAX_RUNS (1 << 20)

struct iot_view {
    long long disp, etype_size;
    long long size, extent;           /* of the filetype: bytes of data, and its tiling step */
    int subarray;                     /* 1: described by the fields below */
    int ndims;
    long long elem;                   /* the subarray's element: bytes (contiguous) */
    long long sizes[IOT_VIEW_MAX_AXES], subsizes[IOT_VIEW_MAX_AXES], starts[IOT_VIEW_MAX_AXES];
    long long *runs;                  /* else: offset, length pairs of one filetype instance */
    long long *before;                /* bytes of the filetype's data before run i */
    size_t nruns;
    const char *failed;               /* why the filetype could not be described, or NULL */
};

/* The view set with these arguments (0 on success; else view->failed says why). */
int iot_view_set(struct iot_view *view, MPI_Offset disp, MPI_Datatype etype,
                 MPI_Datatype filetype);
/* The default view: bytes from offset 0. */
void iot_view_default(struct iot_view *view);
void iot_view_clear(struct iot_view *view);
/* The runs of a subarray view (flattened on demand); 0 on success. */
int iot_view_flatten(struct iot_view *view);

/* The file offset of stream byte p of a flattened view. */
long long iot_view_offset(const struct iot_view *view, long long p);

/* Calls emit(file offset, length, arg) for the file bytes of the stream bytes [from, to) of
 * `view` (runs adjacent in the file merged); stops and returns -1 when emit does. */
int iot_view_runs(const struct iot_view *view, long long from, long long to,
                  int (*emit)(long long offset, long long length, void *arg), void *arg);
