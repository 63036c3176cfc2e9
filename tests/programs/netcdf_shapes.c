/* Creates netCDF-4 variables of doubles with netCDF's defaults through the parallel API and
 * writes no data: the file shows where netCDF-4 over parallel HDF5 puts each variable.
 * Variables of one shape share their dimensions, defined in order before the variables and
 * named by PREFIX and their id (d0, d1, ... unless told).
 *
 *     mpiexec -n 1 netcdf_shapes [--dimension-prefix PREFIX] OUT.nc SHAPE [SHAPE ...]
 *     SHAPE: e.g. 64x32x16
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AXES 4
#define MAX_VARS 16

static void check(int status, const char *what)
{
    if (status != NC_NOERR) {
        fprintf(stderr, "netcdf_shapes: %s: %s\n", what, nc_strerror(status));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int parse_shape(const char *text, size_t *dims)
{
    int axes = 0;
    for (const char *p = text; *p && axes < MAX_AXES; axes++) {
        char *end;
        dims[axes] = strtoul(p, &end, 10);
        if (end == p || dims[axes] == 0)
            return 0;
        p = *end == 'x' ? end + 1 : end;
    }
    return axes;
}

int main(int argc, char **argv)
{
    const char *prefix = "d";
    MPI_Init(&argc, &argv);
    if (argc > 2 && !strcmp(argv[1], "--dimension-prefix")) {
        prefix = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc < 3 || argc - 2 > MAX_VARS) {
        fprintf(stderr, "usage: netcdf_shapes [--dimension-prefix PREFIX] OUT.nc SHAPE [SHAPE ...] "
                "(at most %d)\n", MAX_VARS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int file, ndims[MAX_VARS], dimids[MAX_VARS][MAX_AXES], var;
    check(nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &file),
          "create");
    int next_dim = 0;
    for (int v = 0; v < argc - 2; v++) {
        size_t dims[MAX_AXES];
        ndims[v] = parse_shape(argv[v + 2], dims);
        if (!ndims[v]) {
            fprintf(stderr, "netcdf_shapes: bad shape %s\n", argv[v + 2]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int same = -1;
        for (int u = 0; u < v && same < 0; u++)
            if (!strcmp(argv[u + 2], argv[v + 2]))
                same = u;
        for (int a = 0; a < ndims[v]; a++) {
            if (same >= 0) {
                dimids[v][a] = dimids[same][a];
                continue;
            }
            char name[64];
            snprintf(name, sizeof name, "%s%d", prefix, next_dim++);
            check(nc_def_dim(file, name, dims[a], &dimids[v][a]), "def_dim");
        }
    }
    for (int v = 0; v < argc - 2; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", v);
        check(nc_def_var(file, name, NC_DOUBLE, ndims[v], dimids[v], &var), "def_var");
    }
    check(nc_close(file), "close");
    MPI_Finalize();
    return 0;
}
