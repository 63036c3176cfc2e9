/* Many small file sessions, as EPCC's benchio makes them (its published description: a 3-D
 * array of doubles distributed over a 3-D grid of ranks, written to one shared file per
 * iteration): every rank holds an n x n x n block of a global array; each of --files
 * sessions opens a new file, writes the array collectively and closes it. --api chooses
 * HDF5 (one dataset, a hyperslab per rank, H5Dwrite collective), MPI-IO (a subarray file view
 * per rank, MPI_File_write_all) or both, alternating. Prints one JSON line, as the kernels do
 * (kernels/README.md): the slowest rank's time from the first open to the last close, the
 * rate of the bytes written in it, and each session's time (the slowest rank's): the first
 * session also carries what a library does once, at the first open.
 *
 *   file_sessions [--api hdf5|mpiio|both] [--files N] [--n EDGE] [--dir DIR] [--fortran] */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_times.h"

struct options {
    const char *api, *dir;
    int files, n, fortran;
};

struct grid {
    int rank, size, dims[3], coords[3];
    int global[3], local[3], start[3];
};

static struct options parse(int argc, char **argv)
{
    struct options o = {"hdf5", ".", 10, 64, 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fortran") == 0)
            o.fortran = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--api") == 0)
            o.api = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--files") == 0)
            o.files = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--n") == 0)
            o.n = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--dir") == 0)
            o.dir = argv[++i];
        else {
            fprintf(stderr, "file_sessions: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    return o;
}

static struct grid decompose(int n)
{
    struct grid g = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    MPI_Dims_create(g.size, 3, g.dims);
    for (int a = 2, r = g.rank; a >= 0; a--) {   /* row-major: the last axis fastest */
        g.coords[a] = r % g.dims[a];
        r /= g.dims[a];
    }
    for (int a = 0; a < 3; a++) {
        g.global[a] = g.dims[a] * n;
        g.local[a] = n;
        g.start[a] = g.coords[a] * n;
    }
    return g;
}

static void write_hdf5(const char *path, const struct grid *g, const double *data)
{
    hsize_t global[3], local[3], start[3];
    for (int a = 0; a < 3; a++)
        global[a] = (hsize_t)g->global[a], local[a] = (hsize_t)g->local[a],
        start[a] = (hsize_t)g->start[a];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(3, global, NULL), memory = H5Screate_simple(3, local, NULL);
    hid_t dataset = H5Dcreate2(file, "/array", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, local, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, dxpl, data) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    H5Pclose(dxpl), H5Dclose(dataset), H5Sclose(memory), H5Sclose(space), H5Pclose(fapl);
    H5Fclose(file);
}

static void write_mpiio(const char *path, const struct grid *g, const double *data, int fortran)
{
    MPI_Datatype block;
    MPI_File fh;
    int count = g->local[0] * g->local[1] * g->local[2];
    MPI_Type_create_subarray(3, g->global, g->local, g->start,
                             fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_File_set_size(fh, 0);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, block, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, data, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Type_free(&block);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct options o = parse(argc, argv);
    struct grid g = decompose(o.n);
    size_t count = (size_t)o.n * o.n * o.n;
    double *data = malloc(count * sizeof *data);
    for (size_t i = 0; i < count; i++)
        data[i] = g.rank * 1e9 + (double)i;
    char path[4096];
    MPI_Barrier(MPI_COMM_WORLD);
    double *took = calloc((size_t)o.files, sizeof *took);
    double start = MPI_Wtime();
    for (int f = 0; f < o.files; f++) {
        double began = MPI_Wtime();
        int hdf5 = strcmp(o.api, "hdf5") == 0 || (strcmp(o.api, "both") == 0 && f % 2 == 0);
        snprintf(path, sizeof path, "%s/session%03d.%s", o.dir, f, hdf5 ? "h5" : "dat");
        if (hdf5)
            write_hdf5(path, &g, data);
        else
            write_mpiio(path, &g, data, o.fortran);
        took[f] = MPI_Wtime() - began;
    }
    long long bytes = (long long)count * 8 * g.size * o.files;
    session_times_print(MPI_Wtime() - start, took, o.files, bytes);
    free(took);
    free(data);
    MPI_Finalize();
    return 0;
}
