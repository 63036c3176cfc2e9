/* Datasets created from a creation list of the program's own (chunks of 8, fill time never,
 * alloc time early), with a count of the property lists anyone in the process copied: the
 * program defines H5Pcopy (exported, it comes before libhdf5's in the lookup), counts and
 * forwards each call. The program itself copies none.
 *
 *   dcpl_writer FILE DATASETS
 *
 * prints {"copies": N, "own_list_unchanged": true|false} (its list read back after creating). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long copies;

hid_t H5Pcopy(hid_t list)
{
    static hid_t (*real)(hid_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "H5Pcopy");
    copies++;
    return real(list);
}

enum { ELEMENTS = 32, CHUNK = 8 };

static int list_as_set(hid_t dcpl)
{
    hsize_t chunk = 0;
    H5D_fill_time_t fill = H5D_FILL_TIME_ERROR;
    H5D_alloc_time_t alloc = H5D_ALLOC_TIME_ERROR;
    H5Pget_fill_time(dcpl, &fill);
    H5Pget_alloc_time(dcpl, &alloc);
    return H5Pget_chunk(dcpl, 1, &chunk) == 1 && chunk == CHUNK && fill == H5D_FILL_TIME_NEVER
           && alloc == H5D_ALLOC_TIME_EARLY;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s FILE DATASETS\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int values[ELEMENTS];
    hsize_t elements = ELEMENTS, chunk = CHUNK;
    for (int i = 0; i < ELEMENTS; i++)
        values[i] = i;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(1, &elements, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    herr_t status = 0;
    for (int i = 0; i < atoi(argv[2]); i++) {
        char name[32];
        snprintf(name, sizeof name, "d%d", i);
        hid_t dataset = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl,
                                   H5P_DEFAULT);
        status |= H5Dwrite(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
        status |= H5Dclose(dataset);
    }
    printf("{\"copies\": %ld, \"own_list_unchanged\": %s}\n", copies,
           list_as_set(dcpl) ? "true" : "false");
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fapl);
    MPI_Finalize();
    return status < 0 ? 1 : 0;
}
