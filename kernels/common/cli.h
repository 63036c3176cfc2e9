/* The command-line front every kernel shares: --help from the option tables, and a bad
 * command line said once, as "NAME: error: ...", with exit status 2. */
#ifndef IOTWIN_CLI_H
#define IOTWIN_CLI_H

#include "options.h"

#define EXIT_BAD_ARGUMENTS 2

/* The --sync / --no-sync pair of an option table (*target: 1 syncs, the default). */
#define SYNC_OPTIONS(target)                                                                   \
    {"sync", OPT_SWITCH, (target), 1, 0, "flush to storage inside the timed region (default)", \
     "sync"},                                                                                  \
    {"no-sync", OPT_SWITCH, (target), 0, 0, "do not flush to storage", NULL}

#define HELP_OPTION(target) {"help", OPT_SWITCH, (target), 1, 0, "this help", NULL}

/* Prints the error (before MPI starts: only on the first launched rank) and returns
 * EXIT_BAD_ARGUMENTS. */
int cli_fail(const char *name, const char *message);
/* After MPI_Init: rank 0 prints the error; returns EXIT_BAD_ARGUMENTS. */
int cli_fail_in_run(const char *name, int rank, const char *message);
void cli_print_help(const char *name, const char *summary, const kernel_option *const tables[],
                    size_t ntables);

#endif
