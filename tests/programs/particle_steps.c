/* h5bench write's pattern, written here for iotwin: VPIC-like particles, --particles per rank,
 * written at --steps timesteps into one shared HDF5 file. Each step is a group /Timestep_k
 * holding eight 1-D datasets, one per particle property (x, y, z, id1, id2, px, py, pz: six
 * floats and two ints), rank r writing particles r * n .. (r + 1) * n - 1 of each. Between two
 * steps the ranks compute for --compute-s seconds (a sleep, as h5bench emulates computation).
 *
 * --chunked: datasets chunked at one rank's part (default contiguous); --independent: H5Dwrite
 * independent (default collective).
 *
 * Rank 0 prints the program's own figures: its I/O time (the slowest rank's time from the
 * file's creation to its close, the compute sleeps left out), the wall time of the whole
 * session, and the rates over each:
 *     io_s 0.412 wall_s 2.430 io_rate_mbs 81.4 wall_rate_mbs 13.8
 *
 *   particle_steps FILE [--particles N] [--steps S] [--compute-s C] [--chunked] [--independent] */
#include <getopt.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROPERTIES 8

struct options {
    const char *file;
    long particles;
    int steps, chunked, independent;
    double compute_s;
};

struct property {
    const char *name;
    int is_int;
};

static const struct property PROPERTY[PROPERTIES] = {
    {"x", 0}, {"y", 0}, {"z", 0}, {"id1", 1}, {"id2", 1}, {"px", 0}, {"py", 0}, {"pz", 0}};

static void usage_error(const char *argument)
{
    if (argument)
        fprintf(stderr, "particle_steps: bad argument %s\n", argument);
    fprintf(stderr, "usage: particle_steps FILE [--particles N] [--steps S] [--compute-s C] "
                    "[--chunked] [--independent]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static struct options parse(int argc, char **argv)
{
    static const struct option long_options[] = {
        {"particles", required_argument, NULL, 'n'}, {"steps", required_argument, NULL, 's'},
        {"compute-s", required_argument, NULL, 'c'}, {"chunked", no_argument, NULL, 'k'},
        {"independent", no_argument, NULL, 'i'}, {NULL, 0, NULL, 0}};
    struct options o = {NULL, 1 << 20, 4, 0, 0, 1.0};
    int option;
    while ((option = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (option) {
        case 'n': o.particles = atol(optarg); break;
        case 's': o.steps = atoi(optarg); break;
        case 'c': o.compute_s = atof(optarg); break;
        case 'k': o.chunked = 1; break;
        case 'i': o.independent = 1; break;
        default: usage_error(argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        usage_error(optind < argc ? argv[optind + 1] : NULL);
    o.file = argv[optind];
    if (o.particles < 1 || o.steps < 1 || o.compute_s < 0)
        usage_error(NULL);
    return o;
}

/* The emulated computation: a sleep, so that it lasts as long on a loaded machine. */
static void compute(double seconds)
{
    struct timespec wait = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&wait, &wait) != 0)
        ;
}

/* One timestep: its group and a dataset per property, each rank writing its own particles. */
static void write_step(hid_t file, int step, const struct options *o, const void *data,
                       hid_t dcpl, hid_t dxpl, int rank, int size)
{
    char name[32];
    snprintf(name, sizeof name, "Timestep_%d", step);
    hid_t group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t count = (hsize_t)o->particles, total = count * (hsize_t)size;
    hsize_t start = count * (hsize_t)rank;
    hid_t space = H5Screate_simple(1, &total, NULL), memory = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
    for (int p = 0; p < PROPERTIES; p++) {
        hid_t type = PROPERTY[p].is_int ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
        hid_t set = H5Dcreate2(group, PROPERTY[p].name, type, space, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT);
        if (set < 0 || H5Dwrite(set, type, memory, space, dxpl, data) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        H5Dclose(set);
    }
    H5Sclose(memory);
    H5Sclose(space);
    H5Gclose(group);
}

/* The file session: creation, the steps with the computation between them, the close; the
 * time outside the computation is the rank's I/O time. */
static double write_file(const struct options *o, const void *data, int rank, int size)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_dxpl_mpio(dxpl, o->independent ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
    if (o->chunked) {
        hsize_t chunk = (hsize_t)o->particles;
        H5Pset_chunk(dcpl, 1, &chunk);
    }
    double begin = MPI_Wtime(), computing = 0;
    hid_t file = H5Fcreate(o->file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int step = 0; step < o->steps; step++) {
        if (step) {
            double start = MPI_Wtime();
            compute(o->compute_s);
            computing += MPI_Wtime() - start;
        }
        write_step(file, step, o, data, dcpl, dxpl, rank, size);
    }
    H5Fclose(file);
    double io_s = MPI_Wtime() - begin - computing;
    H5Pclose(dcpl);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    return io_s;
}

/* A rank's particles: floats and ints are both 4 bytes, so one buffer serves every property. */
static float *particles(long count, int rank)
{
    float *data = malloc((size_t)count * sizeof *data);
    if (!data)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < count; i++)
        data[i] = (float)(rank * count + i);
    return data;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct options o = parse(argc, argv);
    int rank, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    float *data = particles(o.particles, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double wall_begin = MPI_Wtime();
    double io_s = write_file(&o, data, rank, size), slowest = 0;
    double wall_s = MPI_Wtime() - wall_begin;
    MPI_Reduce(&io_s, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double mb = 4.0 * PROPERTIES * (double)o.particles * size * o.steps / 1e6;
        printf("io_s %.3f wall_s %.3f io_rate_mbs %.1f wall_rate_mbs %.1f\n", slowest, wall_s,
               mb / slowest, mb / wall_s);
    }
    free(data);
    MPI_Finalize();
    return 0;
}
