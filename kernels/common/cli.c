#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Before MPI_Init the rank is only known from the launcher's environment (MPICH's Hydra sets
 * PMI_RANK, Open MPI's launcher OMPI_COMM_WORLD_RANK); used so that a bad command line is
 * reported once, not once per rank. */
static int is_first_launched_rank(void)
{
    const char *rank = getenv("PMI_RANK");
    if (!rank)
        rank = getenv("OMPI_COMM_WORLD_RANK");
    return !rank || strcmp(rank, "0") == 0;
}

int cli_fail(const char *name, const char *message)
{
    if (is_first_launched_rank())
        fprintf(stderr, "%s: error: %s\n", name, message);
    return EXIT_BAD_ARGUMENTS;
}

int cli_fail_in_run(const char *name, int rank, const char *message)
{
    if (rank == 0)
        fprintf(stderr, "%s: error: %s\n", name, message);
    return EXIT_BAD_ARGUMENTS;
}

void cli_print_help(const char *name, const char *summary, const kernel_option *const tables[],
                    size_t ntables)
{
    printf("usage: %s [options]", name);
    options_print_operands(stdout, tables, ntables);
    printf("\n\n%s\n\nOptions:\n", summary);
    options_print_help(stdout, tables, ntables);
    printf("\nPrints one JSON line (rank 0): bytes, open/write/sync/close times, rate_mbs.\n");
}
