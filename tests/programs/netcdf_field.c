/* A parallel netCDF-4 program as climate and ocean codes write them (not for iotwin): each
 * rank writes its rows of a 2-D field and its slice of a time series through netCDF's
 * parallel API (nc_create_par on MPI-IO, HDF5 underneath), collectively.
 *
 *     mpiexec -n 4 netcdf_field OUT.nc [rows-per-rank] [steps]
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

#define COLUMNS 64

static void check(int status, const char *what)
{
    if (status != NC_NOERR) {
        fprintf(stderr, "netcdf_field: %s: %s\n", what, nc_strerror(status));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: netcdf_field OUT.nc [rows-per-rank] [steps]\n");
        MPI_Finalize();
        return 2;
    }
    size_t rows = argc > 2 ? (size_t)atol(argv[2]) : 256, steps = argc > 3 ? (size_t)atol(argv[3]) : 4;
    int file, dims[2], series_dims[2], field, series;
    check(nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &file),
          "create");
    check(nc_def_dim(file, "y", rows * (size_t)size, &dims[0]), "def y");
    check(nc_def_dim(file, "x", COLUMNS, &dims[1]), "def x");
    check(nc_def_var(file, "field", NC_DOUBLE, 2, dims, &field), "def field");
    check(nc_def_dim(file, "time", NC_UNLIMITED, &series_dims[0]), "def time");
    check(nc_def_dim(file, "rank", (size_t)size, &series_dims[1]), "def rank");
    check(nc_def_var(file, "series", NC_FLOAT, 2, series_dims, &series), "def series");
    check(nc_put_att_int(file, NC_GLOBAL, "ranks", NC_INT, 1, &size), "attribute");
    check(nc_enddef(file), "enddef");
    check(nc_var_par_access(file, field, NC_COLLECTIVE), "collective field");
    check(nc_var_par_access(file, series, NC_COLLECTIVE), "collective series");

    double *values = malloc(rows * COLUMNS * sizeof *values);
    for (size_t i = 0; i < rows * COLUMNS; i++)
        values[i] = (double)(rank * rows * COLUMNS + i);
    size_t start[2] = {(size_t)rank * rows, 0}, count[2] = {rows, COLUMNS};
    check(nc_put_vara_double(file, field, start, count, values), "write field");
    for (size_t step = 0; step < steps; step++) {
        float value = (float)(step * (size_t)size + (size_t)rank);
        size_t at[2] = {step, (size_t)rank}, one[2] = {1, 1};
        check(nc_put_vara_float(file, series, at, one, &value), "write series");
    }
    free(values);
    check(nc_close(file), "close");
    MPI_Finalize();
    return 0;
}
