/* A program that computes inside its file session, as h5bench's write benchmark does: one
 * shared file, --steps writes of --mib MiB per rank each, --compute-s seconds of busy
 * computation between two writes (timed by MPI_Wtime, so that it lasts that long on a loaded
 * machine too). Rank r's step k lands at slot k * ranks + r of one 1-D array of doubles.
 *
 * --api hdf5: one dataset, a hyperslab per rank, H5Dwrite collective; mpiio: MPI_File_write_at_all.
 * --probe (hdf5): the file is also opened through MPI-IO, read-only, for its size, and closed,
 * as IOR's HDF5 back end does: a file the program opens without writing it.
 *
 *   compute_gaps FILE [--api hdf5|mpiio] [--steps N] [--mib M] [--compute-s S] [--probe] */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
    const char *file, *api;
    int steps, mib, probe;
    double compute_s;
};

static struct options parse(int argc, char **argv)
{
    struct options o = {NULL, "hdf5", 2, 16, 0, 1.0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--probe") == 0)
            o.probe = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--api") == 0)
            o.api = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--steps") == 0)
            o.steps = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--mib") == 0)
            o.mib = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--compute-s") == 0)
            o.compute_s = atof(argv[++i]);
        else if (argv[i][0] != '-' && !o.file)
            o.file = argv[i];
        else {
            fprintf(stderr, "compute_gaps: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!o.file || o.steps < 1 || o.mib < 1 || o.compute_s < 0
        || (strcmp(o.api, "hdf5") != 0 && strcmp(o.api, "mpiio") != 0)) {
        fprintf(stderr, "usage: compute_gaps FILE [--api hdf5|mpiio] [--steps N] [--mib M] "
                        "[--compute-s S] [--probe]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return o;
}

/* Busy for `seconds` of wall time: the computation between two writes. */
static double compute(double seconds)
{
    double sum = 0, end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end)
        for (int i = 1; i < 1000; i++)
            sum += 1.0 / i;
    return sum;
}

/* The file's size through MPI-IO, read-only, as IOR's HDF5 back end reads it. */
static void probe_size(const char *file)
{
    MPI_File fh;
    MPI_Offset size = 0;
    if (MPI_File_open(MPI_COMM_WORLD, file, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_File_get_size(fh, &size);
    MPI_File_close(&fh);
}

static void write_hdf5(const struct options *o, const double *data, hsize_t block, int rank,
                       int size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims = block * (hsize_t)size * (hsize_t)o->steps;
    hid_t space = H5Screate_simple(1, &dims, NULL), memory = H5Screate_simple(1, &block, NULL);
    hid_t set = H5Dcreate2(file, "/field", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT,
                           H5P_DEFAULT);
    for (int step = 0; step < o->steps; step++) {
        if (step)
            compute(o->compute_s);
        hsize_t start = block * ((hsize_t)step * (hsize_t)size + (hsize_t)rank);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &block, NULL);
        H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, dxpl, data);
    }
    if (o->probe)
        probe_size(o->file);
    H5Dclose(set);
    H5Sclose(memory);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);
}

static void write_mpiio(const struct options *o, const double *data, int block, int rank,
                        int size)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, o->file, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int step = 0; step < o->steps; step++) {
        if (step)
            compute(o->compute_s);
        MPI_Offset slot = (MPI_Offset)step * size + rank;
        MPI_File_write_at_all(fh, slot * block * (MPI_Offset)sizeof(double), data, block,
                              MPI_DOUBLE, MPI_STATUS_IGNORE);
    }
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct options o = parse(argc, argv);
    int block = o.mib * (1 << 20) / (int)sizeof(double);
    double *data = malloc((size_t)block * sizeof *data);
    if (!data)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < block; i++)
        data[i] = rank + i * 1e-6;
    if (strcmp(o.api, "hdf5") == 0)
        write_hdf5(&o, data, (hsize_t)block, rank, size);
    else
        write_mpiio(&o, data, block, rank, size);
    free(data);
    MPI_Finalize();
    return 0;
}
