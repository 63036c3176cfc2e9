/* An HDF5 file and raw MPI-IO files of every kind of view, for the interposer's MPI-IO layer:
 *  - field.h5: one dataset [ROWS, COLS * ranks] of doubles, each rank its column block,
 *    written collectively (skipped with --mpiio-only);
 *  - raw.dat: a HEADER-byte header written by rank 0 alone (MPI_File_write_at), then a view
 *    at displacement HEADER of a 2-D subarray of the same global array, each rank its block,
 *    written with MPI_File_write_all, then MPI_File_sync;
 *  - strided.dat: a vector view (STRIDES blocks of BLOCK doubles, every `ranks`-th block is
 *    this rank's) written with MPI_File_write_at_all;
 *  - contig.dat: each rank a contiguous view at displacement rank * CONTIG bytes, written with
 *    MPI_File_write (the individual file pointer);
 *  - indexed.dat: a struct of an indexed type (doubles 0, 1 and 4 of this rank's 8), resized to
 *    tile every 8 * ranks doubles; TILES tiles written with MPI_File_write_all;
 *  - posix_<rank>.bin: POSIX_BYTES written with write(2), outside HDF5 and MPI-IO.
 *   mpiio_writer DIR [--mpiio-only] */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS 8
#define COLS 4
#define HEADER 64
#define STRIDES 4
#define BLOCK 16
#define CONTIG 4096
#define POSIX_BYTES 100000
#define TILES 2

static int rank, ranks;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpiio_writer: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void write_hdf5(const char *dir, const double *block)
{
    char path[4096];
    hsize_t dims[2] = {ROWS, (hsize_t)COLS * ranks}, count[2] = {ROWS, COLS};
    hsize_t start[2] = {0, (hsize_t)COLS * rank};
    snprintf(path, sizeof path, "%s/field.h5", dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(2, dims, NULL), memory = H5Screate_simple(2, count, NULL);
    hid_t dataset = H5Dcreate2(file, "/field", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, space, dxpl, block) >= 0, "H5Dwrite");
    H5Pclose(dxpl), H5Dclose(dataset), H5Sclose(memory), H5Sclose(space), H5Pclose(fapl);
    check(H5Fclose(file) >= 0, "H5Fclose");
}

static MPI_File create(const char *dir, const char *name)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS, "MPI_File_open");
    return fh;
}

static void write_raw(const char *dir, const double *block)
{
    char header[HEADER];
    int sizes[2] = {ROWS, COLS * ranks}, subsizes[2] = {ROWS, COLS}, starts[2] = {0, COLS * rank};
    MPI_Datatype view;
    MPI_File fh = create(dir, "raw.dat");
    memset(header, 'h', sizeof header);
    if (rank == 0)
        check(MPI_File_write_at(fh, 0, header, HEADER, MPI_CHAR, MPI_STATUS_IGNORE)
              == MPI_SUCCESS, "header");
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &view);
    MPI_Type_commit(&view);
    MPI_File_set_view(fh, HEADER, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
    check(MPI_File_write_all(fh, block, ROWS * COLS, MPI_DOUBLE, MPI_STATUS_IGNORE)
          == MPI_SUCCESS, "MPI_File_write_all");
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    MPI_Type_free(&view);
}

static void write_strided(const char *dir, const double *data)
{
    MPI_Datatype blocks;
    MPI_File fh = create(dir, "strided.dat");
    MPI_Type_vector(STRIDES, BLOCK, BLOCK * ranks, MPI_DOUBLE, &blocks);
    MPI_Type_commit(&blocks);
    MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK * 8, MPI_DOUBLE, blocks, "native",
                      MPI_INFO_NULL);
    check(MPI_File_write_at_all(fh, 0, data, STRIDES * BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE)
          == MPI_SUCCESS, "MPI_File_write_at_all");
    MPI_File_close(&fh);
    MPI_Type_free(&blocks);
}

static void write_contig(const char *dir, const char *bytes)
{
    MPI_File fh = create(dir, "contig.dat");
    MPI_File_set_view(fh, (MPI_Offset)rank * CONTIG, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    check(MPI_File_write(fh, bytes, CONTIG, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "MPI_File_write");
    MPI_File_close(&fh);
}

static void write_indexed(const char *dir, const double *data)
{
    int lengths[2] = {2, 1}, places[2] = {0, 4}, one = 1;
    MPI_Aint at = 0;
    MPI_Datatype picked, wrapped, tile;
    MPI_File fh = create(dir, "indexed.dat");
    MPI_Type_indexed(2, lengths, places, MPI_DOUBLE, &picked);
    MPI_Type_create_struct(1, &one, &at, &picked, &wrapped);
    MPI_Type_create_resized(wrapped, 0, (MPI_Aint)8 * 8 * ranks, &tile);
    MPI_Type_commit(&tile);
    MPI_File_set_view(fh, (MPI_Offset)rank * 8 * 8, MPI_DOUBLE, tile, "native", MPI_INFO_NULL);
    check(MPI_File_write_all(fh, data, 3 * TILES, MPI_DOUBLE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "MPI_File_write_all (indexed)");
    MPI_File_close(&fh);
    MPI_Type_free(&tile), MPI_Type_free(&wrapped), MPI_Type_free(&picked);
}

static void write_posix(const char *dir, const char *bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/posix_%d.bin", dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int done = 0; done < POSIX_BYTES; done += CONTIG) {
        int n = POSIX_BYTES - done < CONTIG ? POSIX_BYTES - done : CONTIG;
        check(write(fd, bytes, (size_t)n) == n, "write");
    }
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc < 2) {
        fprintf(stderr, "usage: mpiio_writer DIR [--mpiio-only]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double block[ROWS * COLS], strided[STRIDES * BLOCK];
    char bytes[CONTIG];
    for (int i = 0; i < ROWS * COLS; i++)
        block[i] = rank * 1000 + i;
    for (int i = 0; i < STRIDES * BLOCK; i++)
        strided[i] = -(rank * 1000 + i);
    memset(bytes, 'a' + rank % 26, sizeof bytes);
    if (argc < 3 || strcmp(argv[2], "--mpiio-only") != 0)
        write_hdf5(argv[1], block);
    write_raw(argv[1], block);
    write_strided(argv[1], strided);
    write_contig(argv[1], bytes);
    write_indexed(argv[1], strided);
    write_posix(argv[1], bytes);
    MPI_Finalize();
    return 0;
}
