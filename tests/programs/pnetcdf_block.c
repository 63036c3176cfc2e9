/* A PnetCDF program as simulation codes write their checkpoints (not for iotwin): the ranks
 * split a 3-D grid into blocks (MPI_Dims_create), and each writes its block of every variable,
 * collectively with ncmpi_put_vara_double_all, or with `independent` in PnetCDF's independent
 * data mode (ncmpi_begin_indep_data, ncmpi_put_vara_double, ncmpi_end_indep_data), each rank
 * on its own. The program passes an info of its own (PnetCDF's nc_var_align_size), which a
 * tuning config must keep.
 *
 *     mpiexec -n 4 pnetcdf_block OUT.nc [block-edge] [variables] [collective|independent]
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int status, const char *what)
{
    if (status != NC_NOERR) {
        fprintf(stderr, "pnetcdf_block: %s: %s\n", what, ncmpi_strerror(status));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Defines the grid's dimensions and `nvars` double variables over them. */
static void define(int ncid, const int grid[3], MPI_Offset edge, int nvars, int *vars)
{
    static const char *names[3] = {"z", "y", "x"};
    int dims[3];
    for (int d = 0; d < 3; d++)
        check(ncmpi_def_dim(ncid, names[d], grid[d] * edge, &dims[d]), "def_dim");
    for (int v = 0; v < nvars; v++) {
        char name[32];
        snprintf(name, sizeof name, "field_%d", v);
        check(ncmpi_def_var(ncid, name, NC_DOUBLE, 3, dims, &vars[v]), "def_var");
    }
    check(ncmpi_enddef(ncid), "enddef");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: pnetcdf_block OUT.nc [block-edge] [variables] "
                            "[collective|independent]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Offset edge = argc > 2 ? atol(argv[2]) : 16;
    int nvars = argc > 3 ? atoi(argv[3]) : 3;
    const char *mode = argc > 4 ? argv[4] : "collective";
    int independent = strcmp(mode, "independent") == 0;
    if (edge < 1 || nvars < 1 || nvars > 64 || (!independent && strcmp(mode, "collective"))) {
        if (rank == 0)
            fprintf(stderr, "pnetcdf_block: block edge >= 1, 1-64 variables, and collective "
                            "or independent\n");
        MPI_Finalize();
        return 2;
    }
    int grid[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3], vars[64], ncid;
    MPI_Comm cart;
    MPI_Dims_create(size, 3, grid);
    MPI_Cart_create(MPI_COMM_WORLD, 3, grid, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "nc_var_align_size", "512");
    check(ncmpi_create(cart, argv[1], NC_CLOBBER | NC_64BIT_DATA, info, &ncid), "create");
    MPI_Info_free(&info);
    define(ncid, grid, edge, nvars, vars);

    size_t n = (size_t)(edge * edge * edge);
    double *block = malloc(n * sizeof *block);
    MPI_Offset start[3], count[3] = {edge, edge, edge};
    for (int d = 0; d < 3; d++)
        start[d] = coords[d] * edge;
    if (independent)
        check(ncmpi_begin_indep_data(ncid), "begin_indep_data");
    for (int v = 0; v < nvars; v++) {
        for (size_t i = 0; i < n; i++)
            block[i] = rank * 1000.0 + v + (double)i / (double)n;
        if (independent)
            check(ncmpi_put_vara_double(ncid, vars[v], start, count, block), "put_vara");
        else
            check(ncmpi_put_vara_double_all(ncid, vars[v], start, count, block), "put_vara_all");
    }
    if (independent)
        check(ncmpi_end_indep_data(ncid), "end_indep_data");
    check(ncmpi_close(ncid), "close");
    free(block);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
