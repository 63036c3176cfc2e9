/* An HDF5 program as simulation codes are run: from its case directory, reading ./input.nml
 * (a Fortran-style namelist) and writing into ./out/, which it expects to exist (it does not
 * make it). Each step writes one shared file out/step_N.h5 (every rank its block of one
 * dataset, collectively); rank 0 appends a line per step to ./case.log.
 *
 *     mpiexec -n N case_app        with ./input.nml holding  &case steps = 2, kib = 256 /
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of `key = V` in the namelist text, or -1. */
static long namelist_value(const char *text, const char *key)
{
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        long value;
        int starts_word = p == text || strchr(" ,&\n\t", p[-1]) != NULL;
        if (starts_word && sscanf(p + strlen(key), " = %ld", &value) == 1)
            return value;
    }
    return -1;
}

static int read_input(long *steps, long *kib)
{
    char text[4096] = "";
    FILE *in = fopen("input.nml", "r");
    if (!in) {
        fprintf(stderr, "case_app: cannot open input.nml in the current directory\n");
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, in);
    text[n] = '\0';
    fclose(in);
    *steps = namelist_value(text, "steps");
    *kib = namelist_value(text, "kib");
    if (*steps < 1 || *kib < 1) {
        fprintf(stderr, "case_app: input.nml: expected steps = N and kib = K (>= 1)\n");
        return -1;
    }
    return 0;
}

static int write_step(long step, long kib, int rank, int size, const double *values)
{
    char name[64];
    snprintf(name, sizeof name, "out/step_%ld.h5", step);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        if (rank == 0)
            fprintf(stderr, "case_app: cannot create %s (does ./out exist?)\n", name);
        return -1;
    }
    hsize_t count = (hsize_t)kib * 1024 / sizeof(double);
    hsize_t total = count * (hsize_t)size, offset = count * (hsize_t)rank;
    hid_t filespace = H5Screate_simple(1, &total, NULL);
    hid_t dataset = H5Dcreate2(file, "/field", H5T_NATIVE_DOUBLE, filespace, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, &offset, NULL, &count, NULL);
    hid_t memspace = H5Screate_simple(1, &count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t status = H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, values);
    H5Pclose(dxpl);
    H5Sclose(memspace);
    H5Sclose(filespace);
    H5Dclose(dataset);
    H5Fclose(file);
    return status < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);  /* its own messages say what went wrong */
    long steps, kib;
    if (read_input(&steps, &kib))
        MPI_Abort(MPI_COMM_WORLD, 2);
    size_t count = (size_t)kib * 1024 / sizeof(double);
    double *values = malloc(count * sizeof *values);
    for (size_t i = 0; i < count; i++)
        values[i] = rank + 1e-6 * (double)i;
    int failed = 0;
    for (long step = 0; step < steps && !failed; step++) {
        failed = write_step(step, kib, rank, size, values);
        if (rank == 0 && !failed) {
            FILE *log = fopen("case.log", "a");
            if (log) {
                fprintf(log, "step %ld written\n", step);
                fclose(log);
            }
        }
    }
    free(values);
    MPI_Finalize();
    return failed ? 1 : 0;
}
