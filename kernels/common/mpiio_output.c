/* Bare MPI-IO: the layout's datasets one after another from the start of the file, each a
 * row-major array of its extents with nothing between them (the placement iosim gives a file
 * of api mpiio: flat_layout, sim-models/src/iolib/hdf5_layout.cpp). Each rank writes its held block
 * of a dataset in one call: a file view of the block (MPI_Type_create_subarray over the whole
 * dataset, displaced to the dataset's start) and a memory type that selects the block inside
 * its halo, so no copy is made; MPI_File_write_all, or MPI_File_write when independent. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_types.h"
#include "output.h"

typedef struct {
    MPI_File fh;
    const char *path; /* not copied: the caller's */
    int independent;
} mpiio_file;

static int fail(char *err, size_t errlen, const char *what, const char *path, int code)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    snprintf(err, errlen, "%s '%s': %s", what, path, text);
    return -1;
}

static int open_file(void **file, const char *path, MPI_Comm comm, int independent, char *err,
                     size_t errlen)
{
    mpiio_file *f = malloc(sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory opening '%s'", path);
        return -1;
    }
    f->path = path;
    f->independent = independent;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f->fh);
    if (rc == MPI_SUCCESS) {
        MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
        rc = MPI_File_set_size(f->fh, 0); /* a file of a previous run is replaced, as HDF5's */
        if (rc != MPI_SUCCESS)
            MPI_File_close(&f->fh);
    }
    if (rc != MPI_SUCCESS) {
        free(f);
        return fail(err, errlen, "cannot create", path, rc);
    }
    *file = f;
    return 0;
}

/* Where a held block lies in its dataset (the file view's type) and inside its halo. */
static int block_types(const held_block *b, MPI_Datatype element, MPI_Datatype *in_file,
                       MPI_Datatype *in_memory)
{
    int dims[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS], start[DECOMP_MAX_DIMS];
    for (int a = 0; a < b->ndims; a++) {
        dims[a] = (int)b->dims[a];
        count[a] = (int)b->count[a];
        start[a] = (int)b->start[a];
    }
    if (MPI_Type_create_subarray(b->ndims, dims, count, start, MPI_ORDER_C, element, in_file))
        return -1;
    MPI_Type_commit(in_file);
    if (held_block_memory_type(b, element, in_memory) == MPI_SUCCESS)
        return 0;
    MPI_Type_free(in_file);
    return -1;
}

/* An empty block writes nothing: a view of the whole dataset and no element, still in the
 * collective call. */
static int write_block(mpiio_file *f, const held_block *b, MPI_Offset at, MPI_Datatype element)
{
    int rc;
    if (held_block_elements(b) == 0) {
        rc = MPI_File_set_view(f->fh, at, element, element, "native", MPI_INFO_NULL);
        if (rc == MPI_SUCCESS)
            rc = f->independent ? MPI_File_write(f->fh, b->values, 0, element, MPI_STATUS_IGNORE)
                                : MPI_File_write_all(f->fh, b->values, 0, element,
                                                     MPI_STATUS_IGNORE);
        return rc;
    }
    MPI_Datatype in_file, in_memory;
    if (block_types(b, element, &in_file, &in_memory))
        return MPI_ERR_TYPE;
    rc = MPI_File_set_view(f->fh, at, element, in_file, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS)
        rc = f->independent ? MPI_File_write(f->fh, b->values, 1, in_memory, MPI_STATUS_IGNORE)
                            : MPI_File_write_all(f->fh, b->values, 1, in_memory,
                                                 MPI_STATUS_IGNORE);
    MPI_Type_free(&in_file);
    MPI_Type_free(&in_memory);
    return rc;
}

static int write_layout(void *file, const layout *l, const held_blocks *held, char *err,
                        size_t errlen)
{
    mpiio_file *f = file;
    MPI_Offset at = 0;
    for (size_t k = 0; k < l->count; k++) {
        const dataset_spec *ds = &l->datasets[k];
        if (ds->chunked || ds->access_elements) {
            snprintf(err, errlen, "dataset '%s': bare MPI-IO writes contiguous datasets in one "
                     "call per block (no chunks, no access_elements)", ds->name);
            return -1;
        }
        if (!held_block_fits_subarray(&held->blocks[k])) {
            snprintf(err, errlen, "dataset '%s': an extent over 2^31-1 elements is beyond "
                     "MPI_Type_create_subarray", ds->name);
            return -1;
        }
        int rc = write_block(f, &held->blocks[k], at, mpi_element(ds->type));
        if (rc != MPI_SUCCESS) {
            char what[200];
            snprintf(what, sizeof what, "cannot write dataset '%s' of", ds->name);
            return fail(err, errlen, what, f->path, rc);
        }
        at += (MPI_Offset)(dataset_elements(ds) * element_bytes(ds->type));
    }
    return 0;
}

static int sync_file(void *file, char *err, size_t errlen)
{
    mpiio_file *f = file;
    int rc = MPI_File_sync(f->fh);
    return rc == MPI_SUCCESS ? 0 : fail(err, errlen, "cannot sync", f->path, rc);
}

static int close_file(void *file, char *err, size_t errlen)
{
    mpiio_file *f = file;
    int rc = MPI_File_close(&f->fh);
    int status = rc == MPI_SUCCESS ? 0 : fail(err, errlen, "cannot close", f->path, rc);
    free(f);
    return status;
}

const output_ops mpiio_output_ops = {1, open_file, write_layout, sync_file, close_file, NULL};
