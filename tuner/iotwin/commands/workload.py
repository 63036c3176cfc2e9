"""`iotwin workload`: make workload files (sim-models/WORKLOAD.md) from other descriptions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iotwin.replication.darshan_workload import workload_from_log
from iotwin.replication.macsio import simulation_workload
from iotwin.replication.output import workload_text, write_atomically


def _from_darshan(args: argparse.Namespace) -> int:
    return _emit(workload_text(workload_from_log(Path(args.log))), args.output)


def _macsio(args: argparse.Namespace) -> int:
    return _emit(workload_text(simulation_workload(Path(args.description), args.simulation)),
                 args.output)


def _emit(text: str, output: str | None) -> int:
    """Everything is built before the output file is touched: no partial file on error."""
    if output:
        write_atomically(Path(output), text)
    else:
        sys.stdout.write(text)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("workload", help="make workload files",
                                   description=__doc__)
    actions = parser.add_subparsers(title="actions", metavar="ACTION", required=True)
    darshan = actions.add_parser(
        "from-darshan", help="replicate the writes recorded in a Darshan log",
        description="Characterise the files, datasets, access sizes and transfer modes an "
        "application wrote (MPI-IO and HDF5 modules) and write them as a workload.")
    darshan.add_argument("log", metavar="LOG.darshan")
    darshan.add_argument("-o", "--output", metavar="W.yaml",
                         help="output file (default: standard output)")
    darshan.set_defaults(func=_from_darshan)
    macsio = actions.add_parser(
        "macsio", help="a simulation from MACSio-like parameters (dumps, growth, states)",
        description="Build the workload of one simulation of a description such as "
        "experiments/macsio/simulations.yaml, with the paper's equations 1 and 4.")
    macsio.add_argument("description", metavar="SIMULATIONS.yaml")
    macsio.add_argument("simulation", help="its name in the description, e.g. sim-a")
    macsio.add_argument("-o", "--output", metavar="W.yaml",
                        help="output file (default: standard output)")
    macsio.set_defaults(func=_macsio)
