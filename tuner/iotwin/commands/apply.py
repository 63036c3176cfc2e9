"""`iotwin apply CONFIG -- LAUNCHER ...`: run a production job under a tuned config, the
interposer preloaded into the ranks only.

The launcher (mpiexec of MPICH or Open MPI, srun) is told by its name; the options that give
its ranks LD_PRELOAD (the interposer built for the ranks' MPI) and IOTWIN_CONFIG go right after
it, so the launcher itself is not preloaded (that costs each launch 65-100 ms and hooks nothing
there). `--print LAUNCHER` prints those options for a job script instead of running anything.
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

from iotwin.config.validation import load_config
from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI, select_flavour
from iotwin.executors.launch import Launcher, known_launcher, launcher_of


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "apply", help="run a job under a tuning config, the interposer on its ranks only",
        usage="iotwin apply CONFIG [--mpi FLAVOUR] -- mpiexec|srun ... PROGRAM ARGS\n"
              "       iotwin apply CONFIG --print mpich|openmpi|srun [--mpi FLAVOUR]",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", metavar="CONFIG", help="the tuning config (e.g. tuned-1.yaml)")
    parser.add_argument("--print", dest="print_for", metavar="LAUNCHER",
                        help="print the launcher's options instead of running")
    parser.add_argument("--mpi", help="the ranks' MPI flavour where the launcher starts either "
                        f"(srun; default {DEFAULT_MPI})")
    parser.add_argument("command", nargs="*", metavar="-- LAUNCHER ...")
    parser.set_defaults(func=main)


def rank_options(config: str, chosen: Launcher, mpi: str | None) -> list[str]:
    """The options that give ``chosen``'s ranks the interposer and the config."""
    load_config(config)  # a bad config is refused here, not in every rank
    if mpi and chosen.mpi and mpi != chosen.mpi:
        raise UserError(f"--mpi {mpi}: {chosen.name} starts {chosen.mpi} ranks")
    flavour = select_flavour(chosen.mpi or mpi or DEFAULT_MPI)
    preload = [str(flavour.interposer()), os.environ.get("LD_PRELOAD", "")]
    return chosen.rank_options({"LD_PRELOAD": ":".join(filter(None, preload)),
                                "IOTWIN_CONFIG": str(Path(config).resolve())})


def main(args: argparse.Namespace) -> int:
    command = list(args.command)
    if args.print_for:
        if command:
            raise UserError("--print prints options: no command after it")
        print(shlex.join(rank_options(args.config, known_launcher(args.print_for), args.mpi)))
        return 0
    if not command:
        raise UserError("give the job's launch command after --, e.g. -- mpiexec -n 64 ./app")
    chosen = launcher_of(command[0])
    argv = [command[0], *rank_options(args.config, chosen, args.mpi), *command[1:]]
    os.execvp(argv[0], argv)  # the job's own exit status and signals, as without iotwin
