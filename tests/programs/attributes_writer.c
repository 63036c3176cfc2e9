/* Writes the attributes the interposer's capture records, and two it lists unsupported: a
 * string on the root group (through the file's id), an integer array on a dataset, a double
 * named by path (H5Acreate_by_name), a dataset made a dimension scale and attached to another,
 * then a variable-length string attribute and an attribute of a group.
 *
 *     mpiexec -n N attributes_writer FILE.h5
 */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <mpi.h>
#include <stdio.h>

#define PER_RANK 16

static void attribute(hid_t object, const char *path, const char *name, hid_t type,
                      hid_t space, const void *value)
{
    hid_t attr = H5Acreate_by_name(object, path, name, type, space, H5P_DEFAULT, H5P_DEFAULT,
                                   H5P_DEFAULT);
    H5Awrite(attr, type, value);
    H5Aclose(attr);
}

static void string_attribute(hid_t object, const char *name, const char *text, size_t length)
{
    hid_t type = H5Tcopy(H5T_C_S1), scalar = H5Screate(H5S_SCALAR);
    H5Tset_size(type, length);
    hid_t attr = H5Acreate2(object, name, type, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, text);
    H5Aclose(attr), H5Sclose(scalar), H5Tclose(type);
}

static hid_t dataset(hid_t file, const char *name, hid_t type, hsize_t size)
{
    hid_t space = H5Screate_simple(1, &size, NULL);
    hid_t id = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(space);
    return id;
}

/* Rank r writes elements [16 r, 16 r + 16) of `d`, collectively. */
static void write_block(hid_t d, int rank)
{
    double values[PER_RANK] = {0};
    hsize_t start = (hsize_t)PER_RANK * rank, count = PER_RANK;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, values);
    H5Pclose(dxpl), H5Sclose(ms), H5Sclose(fs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: attributes_writer FILE.h5\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    string_attribute(file, "title", "attributes", 10);
    hsize_t n = (hsize_t)PER_RANK * size, three = 3;
    hid_t data = dataset(file, "/data", H5T_NATIVE_DOUBLE, n);
    hid_t x = dataset(file, "/x", H5T_NATIVE_DOUBLE, n);
    int ids[3] = {1, 2, 3};
    double scale = 0.5;
    hid_t list = H5Screate_simple(1, &three, NULL), scalar = H5Screate(H5S_SCALAR);
    attribute(data, ".", "ids", H5T_NATIVE_INT, list, ids);
    attribute(file, "data", "scale", H5T_NATIVE_DOUBLE, scalar, &scale);
    H5DSset_scale(x, "x");
    H5DSattach_scale(data, x, 0);
    hid_t text = H5Tcopy(H5T_C_S1);
    H5Tset_size(text, H5T_VARIABLE);
    const char *note = "a variable-length string";
    attribute(data, ".", "note", text, scalar, &note);
    hid_t group = H5Gcreate2(file, "/g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attribute(group, ".", "kind", H5T_NATIVE_INT, scalar, ids);
    write_block(data, rank);
    write_block(x, rank);
    H5Gclose(group), H5Tclose(text), H5Sclose(scalar), H5Sclose(list);
    H5Dclose(x), H5Dclose(data), H5Fclose(file), H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
