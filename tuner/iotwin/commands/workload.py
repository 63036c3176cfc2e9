"""`iotwin workload`: make workload files (sim-models/WORKLOAD.md) from other descriptions."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from iotwin.commands._options import (
    add_cost_limit_arguments,
    add_keep_argument,
    add_output_file_arguments,
    add_timeout_argument,
    add_workdir_argument,
    bounded,
    cost_limits,
    new_output,
)
from iotwin.config import validation as config
from iotwin.core.document_cost import document_cost
from iotwin.core.errors import UserError
from iotwin.executors.capture_run import capture_program, program_target
from iotwin.executors.mpi_flavour import say_flavour
from iotwin.executors.program_cost import program_cost
from iotwin.model.platforms import load_platform
from iotwin.workloads.cost import darshan_log_cost
from iotwin.workloads.ior import (
    IO500_FILES,
    IO500_PHASES,
    IO500_SECONDS,
    io500_arguments,
    ior_workload,
    parse_ior,
    written_cost,
)
from iotwin.workloads.replication.darshan_workload import workload_from_log
from iotwin.workloads.replication.macsio import simulation_workload
from iotwin.workloads.replication.output import workload_text, write_atomically
from iotwin.workloads.scaling import scale_workload
from iotwin.workloads.workload import load_workload


def _from_darshan(args: argparse.Namespace) -> int:
    darshan_log_cost(Path(args.log), cost_limits(args))
    return _emit(workload_text(workload_from_log(Path(args.log))), args.output)


def _macsio(args: argparse.Namespace) -> int:
    document_cost(Path(args.description), args.description, cost_limits(args))
    return _emit(workload_text(simulation_workload(Path(args.description), args.simulation)),
                 args.output)


def _capture(args: argparse.Namespace) -> int:
    command = args.program[1:] if args.program[:1] == ["--"] else args.program
    tuning = config.load_config(args.config) if args.config else {}
    target = program_target(command, args.ranks)
    program_cost(args.ranks, cost_limits(args))
    say_flavour(target)
    program = capture_program(target, config=tuning, timeout_s=args.timeout,
                              workdir=Path(args.workdir), keep=args.keep)
    for what in program.not_modelled:
        print(f"iotwin: not in the workload: {what}", file=sys.stderr)
    status = _emit(workload_text(program.workload), args.output)
    print(f"iotwin: captured {program.summary()}"
          + (f"; written to {args.output}" if args.output else ""), file=sys.stderr)
    return status


def _scale(args: argparse.Namespace) -> int:
    document_cost(Path(args.workload), args.workload, cost_limits(args))
    scaled, rules = scale_workload(load_workload(args.workload), args.ranks,
                                   "strong" if args.strong else "weak")
    for rule in rules:
        print(f"iotwin: {rule}", file=sys.stderr)
    return _emit(workload_text(scaled), args.output)


def _from_ior(args: argparse.Namespace) -> int:
    arguments = args.ior_args[1:] if args.ior_args[:1] == ["--"] else args.ior_args
    if args.io500:
        if arguments:
            raise UserError("--io500 gives IOR's options itself: no IOR arguments after it")
        arguments = _io500_arguments(args)
    elif args.segments or args.platform:
        raise UserError("--segments and --platform size an --io500 phase")
    run = parse_ior(arguments)
    written_cost(run, cost_limits(args))
    for what in run.ignored:
        print(f"iotwin: IOR option {what}: does not change what is written, not modelled",
              file=sys.stderr)
    for note in run.notes:
        print(f"iotwin: {note}", file=sys.stderr)
    if run.reads:
        print("iotwin: IOR's read phase is not simulated: the workload is its write phase",
              file=sys.stderr)
    command = "ior " + " ".join(shlex.quote(a) for a in arguments)
    return _emit(workload_text(ior_workload(run, args.ranks, args.nodes, command)), args.output)


def _io500_arguments(args: argparse.Namespace) -> list[str]:
    """IO500's phase on its directory, sized by --segments or by IO500_SECONDS at the
    platform's peak."""
    if args.segments is None and not args.platform:
        raise UserError(f"--io500 {args.io500}: give --segments N, or --platform MODEL to write "
                        f"{IO500_SECONDS} s at its storage and client peak")
    if args.segments is not None:
        arguments = io500_arguments(args.io500, args.ranks, segments=args.segments)
    else:
        platform = load_platform(args.platform)
        volume = int(IO500_SECONDS * platform.peak_mbs(args.nodes) * 1e6)
        arguments = io500_arguments(args.io500, args.ranks, volume_bytes=volume)
    return [*arguments, "-o", IO500_FILES[args.io500]]


def _writing(action: Callable[[argparse.Namespace], int]
             ) -> Callable[[argparse.Namespace], int]:
    """``action``, after checking that its output may be written (before it reads a log or
    runs a program)."""
    def checked(args: argparse.Namespace) -> int:
        if args.output:
            new_output(Path(args.output), args.force)
        return action(args)
    return checked


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
    add_output_file_arguments(darshan, "W.yaml")
    add_cost_limit_arguments(darshan)
    darshan.set_defaults(func=_writing(_from_darshan))
    macsio = actions.add_parser(
        "macsio", help="a simulation from MACSio-like parameters (dumps, growth, states)",
        description="Build the workload of one simulation of a description such as "
        "experiments/macsio/simulations.yaml, with the paper's equations 1 and 4.")
    macsio.add_argument("description", metavar="SIMULATIONS.yaml")
    macsio.add_argument("simulation", help="its name in the description, e.g. sim-a")
    add_output_file_arguments(macsio, "W.yaml")
    add_cost_limit_arguments(macsio)
    macsio.set_defaults(func=_writing(_macsio))
    capture = actions.add_parser(
        "capture", help="run a program once under the interposer and write its workload",
        usage="iotwin workload capture --ranks N [--config CFG] [-o W.yaml] -- PROGRAM ARGS",
        description="Run any parallel HDF5 program on N ranks with the interposer capturing "
        "its files, datasets, writes with every rank's selection, flushes and compute gaps "
        "(interposer/README.md), and write them as a workload.")
    capture.add_argument("--ranks", type=bounded("processes"), required=True, metavar="N")
    capture.add_argument("--config", metavar="CFG", help="tuning config to run under")
    add_timeout_argument(capture)
    add_workdir_argument(capture)
    add_keep_argument(capture)
    add_output_file_arguments(capture, "W.yaml")
    capture.add_argument("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS")
    add_cost_limit_arguments(capture)
    capture.set_defaults(func=_writing(_capture))
    ior = actions.add_parser(
        "from-ior", help="IOR's write phase from its own command line (or IO500's phases)",
        usage="iotwin workload from-ior --ranks N --nodes M [-o W.yaml] -- IOR-OPTIONS\n"
              "       iotwin workload from-ior --ranks N --nodes M --io500 "
              "easy-write|hard-write (--segments S | --platform MODEL)",
        description="Read IOR's options as IOR does (-a POSIX|MPIIO|HDF5, -F, -t, -b, -s, -c, "
        "-e, -C, -w/-r, -o, -E; sizes as 47008, 2048k, 2m) into the workload of its write "
        "phase on N processes over M nodes: each transfer one call, a shared file's blocks "
        "interleaved by segment as IOR places them; an absolute -o (/lustre/scratch/ior-hard/f) "
        "keeps its last directory and name, in the run's directory. --io500 gives IO500's "
        "write phases (POSIX, -C -e -w; easy: -F -t 2048k; hard: one shared file, -t 47008 "
        "-b 47008) in IO500's directories, writing 300 s at the platform's peak or "
        "--segments a process.")
    ior.add_argument("--ranks", type=int, required=True, metavar="N")
    ior.add_argument("--nodes", type=int, required=True, metavar="M")
    ior.add_argument("--io500", choices=tuple(IO500_PHASES), help="one of IO500's write phases")
    ior.add_argument("--segments", type=int, metavar="S",
                     help="--io500: segments a process (hard: records; easy: 2 MiB transfers)")
    ior.add_argument("--platform", metavar="MODEL",
                     help="--io500: size the phase to 300 s at this model's peak")
    add_output_file_arguments(ior, "W.yaml")
    ior.add_argument("ior_args", nargs=argparse.REMAINDER, metavar="-- IOR-OPTIONS")
    add_cost_limit_arguments(ior)
    ior.set_defaults(func=_writing(_from_ior))
    scale = actions.add_parser(
        "scale", help="a workload at another rank count (capture small, predict big)",
        description="The workload at N ranks, inferred from what it does at its own: weak "
        "scaling (the default) keeps each writer's block and grows the datasets, strong scaling "
        "keeps the datasets and splits them among the writers. The process grid's rule (one "
        "axis, or MPI_Dims_create over every axis) is read from the workload's own grids and "
        "printed; a workload whose pattern at other scales cannot be told is refused with the "
        "reason (iotwin.workloads.scaling).")
    scale.add_argument("workload", metavar="W.yaml")
    scale.add_argument("--ranks", type=bounded("processes"), required=True, metavar="N")
    how = scale.add_mutually_exclusive_group()
    how.add_argument("--weak", action="store_true", help="same block per writer (default)")
    how.add_argument("--strong", action="store_true", help="same datasets, split among more")
    add_output_file_arguments(scale, "W.yaml")
    add_cost_limit_arguments(scale)
    scale.set_defaults(func=_writing(_scale))
