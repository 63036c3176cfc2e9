/* Datasets created from a creation list of the program's own, with a count of the property
 * lists anyone in the process copied: the program defines H5Pcopy (exported, it comes before
 * libhdf5's in the lookup), counts and forwards each call. The program itself copies none. Its
 * list: chunks of 8, fill time never, alloc time early ("set", the default), or chunks of 8 and
 * fill and alloc time left to HDF5 ("layout": the alloc time follows the layout, which HDF5
 * keeps apart from one set to the same value). The file is opened with the MPI-IO driver
 * ("mpio", the default) or with HDF5's default driver ("sec2": one process).
 *
 *   dcpl_writer FILE DATASETS [set|layout] [mpio|sec2]
 *
 * prints {"copies": N, "own_list_unchanged": true|false}: after the creates, whether its list
 * equals (H5Pequal: every property HDF5 keeps) one built the same way. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "next_symbol.h"

static long copies;

hid_t H5Pcopy(hid_t list)
{
    copies++;
    return NEXT_SYMBOL(H5Pcopy)(list);
}

enum { ELEMENTS = 32, CHUNK = 8 };

static hid_t own_list(int set_times)
{
    hsize_t chunk = CHUNK;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    if (set_times) {
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    }
    return dcpl;
}

static int unchanged(hid_t dcpl, int set_times)
{
    hid_t built = own_list(set_times);
    int same = H5Pequal(dcpl, built) > 0;
    H5Pclose(built);
    return same;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int set_times = argc < 4 || strcmp(argv[3], "layout") != 0;
    int mpio = argc < 5 || strcmp(argv[4], "sec2") != 0;
    if (argc < 3 || argc > 5 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s FILE DATASETS [set|layout] [mpio|sec2]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int values[ELEMENTS];
    hsize_t elements = ELEMENTS;
    for (int i = 0; i < ELEMENTS; i++)
        values[i] = i;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (mpio)
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(1, &elements, NULL);
    hid_t dcpl = own_list(set_times);
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
           unchanged(dcpl, set_times) ? "true" : "false");
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    H5Pclose(fapl);
    MPI_Finalize();
    return status < 0 ? 1 : 0;
}
