"""The options several commands share, defined once: where results are stored, where
simulations run, where programs run, how long a real run may take."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from iotwin.core import cost
from iotwin.core.errors import UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.owned_folder import OutputFolder
from iotwin.formats.bounds import load_bounds
from iotwin.model.sim_cluster import ENV, checked_address

#: an integer option's text: ASCII digits (int() takes other scripts' digits and 1_000 too)
_INTEGER = re.compile(r"^[0-9]{1,20}$")
_SHOWN = 40  # characters of a bad value the error quotes


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    """``--store PATH``: every command that reads or writes results."""
    parser.add_argument("--store", metavar="PATH", default=None,
                        help="results database (default: $IOTWIN_STORE, else ./iotwin.db)")


def add_sim_cluster_argument(parser: argparse.ArgumentParser) -> None:
    """``--sim-cluster ADDRESS``: every command that simulates."""
    parser.add_argument("--sim-cluster", metavar="ADDRESS", type=_address,
                        help="run simulation batches on a Dask cluster: local (a LocalCluster, "
                             "a worker per core), local:N, or a scheduler's tcp://HOST:PORT "
                             f"(default: ${ENV}, else one local process)")


def add_timeout_argument(parser: argparse.ArgumentParser, default: float | None = RUN_TIMEOUT_S
                         ) -> None:
    """``--timeout S``: every command that runs programs; ``default`` None leaves the choice
    to a stored campaign (``iotwin tune --resume``)."""
    parser.add_argument("--timeout", type=float, default=default, metavar="S",
                        help="seconds before a run is killed and counted as a timeout "
                             f"(default {RUN_TIMEOUT_S:g})")


def add_site_rules_argument(parser: argparse.ArgumentParser) -> None:
    """``--ignore-site-rules``: every command that takes a user's config for a platform."""
    parser.add_argument("--ignore-site-rules", action="store_true",
                        help="go on with a config that breaks the platform's site rules "
                             "(its site_rules: stripes a file, pool, size threshold, forbidden "
                             "settings), with a warning for each")


def bounded(kind: str) -> Callable[[str], int]:
    """An integer option's type: ASCII digits within the bounds table's ``kind`` (``processes``
    for ``--ranks``, ``evaluation_budget`` for a budget), refused before anything is computed
    from it (a workload scaled to 2^62 ranks searches divisors for ever)."""
    bound = load_bounds()[kind]

    def parse(text: str) -> int:
        value = int(text) if _INTEGER.match(text) else None
        if value is None or not bound.contains(value):
            shown = text if len(text) <= _SHOWN else f"{text[:_SHOWN]}..."
            raise argparse.ArgumentTypeError(bound.refusal(repr(shown)))
        return value

    parse.__name__ = kind  # argparse names the type in some messages
    return parse


def add_cost_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """``--max-time`` and ``--max-memory``: every command whose work grows with its inputs,
    estimated before it starts (iotwin.core.cost) and refused beyond these."""
    parser.add_argument("--max-time", metavar="DURATION",
                        help="refuse to start work estimated beyond this much CPU time (90s, "
                             f"30min, 2h, 1d; default ${cost.TIME_ENV}, else "
                             f"{cost.duration_text(cost.constant('limits', 'max_seconds'))})")
    parser.add_argument("--max-memory", metavar="SIZE",
                        help="refuse to start work estimated to hold more memory than this "
                             f"(512MiB, 8GiB; default ${cost.MEMORY_ENV}, else "
                             f"{cost.bytes_text(cost.constant('limits', 'max_memory'))})")


def cost_limits(args: argparse.Namespace) -> cost.Limits:
    """The limits of ``add_cost_limit_arguments``'s options."""
    return cost.limits(args.max_time, args.max_memory)


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"iotwin: warning: {line}", file=sys.stderr)


def _address(address: str) -> str:
    try:
        return checked_address(address)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


WORKDIR_HELP = (
    "where programs run (default: the current directory, as under mpiexec): relative paths, "
    "input files and subdirectories are found there. Runs in one directory take turns; what a "
    "run writes there is removed when it ends (files that existed before stay as the program "
    "leaves them; names starting with a dot are never touched). Nothing else should write "
    "new files into it meanwhile: they would be taken for the run's")


def add_workdir_argument(parser: argparse.ArgumentParser, default: str | None = os.curdir,
                         note: str = "") -> None:
    """``--workdir DIR``: every command that starts programs; ``default`` None leaves the
    choice to a stored campaign (``iotwin tune --resume``)."""
    parser.add_argument("--workdir", metavar="DIR", type=_directory, default=default,
                        help=WORKDIR_HELP + note)


def add_keep_argument(parser: argparse.ArgumentParser) -> None:
    """``--keep DIR``: the commands that start programs and show what they wrote."""
    parser.add_argument("--keep", metavar="DIR", type=Path,
                        help="keep the last run's output files in DIR (at their paths in the "
                             "working directory) and every run's stdout, stderr, config and "
                             "interposer report in DIR/iotwin-runs/NNN; DIR must be new, empty "
                             "or hold only what iotwin kept there (removed first)")


def _directory(value: str) -> str:
    if not os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"{value}: not a directory")
    return os.path.abspath(value)


def add_force_argument(parser: argparse.ArgumentParser) -> None:
    """``--force``: the commands that write a file the user names (or a default one)."""
    parser.add_argument("--force", action="store_true",
                        help="replace the output file if it exists (without it, an existing "
                             "file is never overwritten)")


def add_output_file_arguments(parser: argparse.ArgumentParser, metavar: str,
                              default: str = "standard output", **options: Any) -> None:
    """``-o FILE`` and ``--force``: the commands that write one file, by default to
    ``default``."""
    parser.add_argument("-o", "--output", metavar=metavar, help=f"where to write it (default: "
                        f"{default})", **options)
    add_force_argument(parser)


def add_output_folder_arguments(parser: argparse.ArgumentParser, what: str,
                                default: str = "") -> None:
    """``-o DIR`` and ``--force``: the commands that write several files into a folder."""
    parser.add_argument("-o", "--output", type=Path, metavar="DIR",
                        help=f"write {what} here{default}; DIR must be new, empty or hold only "
                             f"what iotwin wrote there (listed in DIR/.iotwin-written.json)")
    parser.add_argument("--force", action="store_true",
                        help="write into DIR even if it holds files of yours (they are never "
                             "removed; a file of the name iotwin writes is replaced)")


def output_folder(path: Path, force: bool, own: tuple[str, ...] = ()) -> OutputFolder:
    """The ``-o`` folder ``path``, checked before any work starts (OutputFolder.check)."""
    folder = OutputFolder(path, own=own)
    folder.check(force)
    return folder


def new_output(path: Path, force: bool) -> Path:
    """``path`` if the command may write it: a file that does not exist yet, or one the user
    asked to replace (``--force``); checked before any work starts, so that no long run ends
    in a refusal. UserError naming it else (a directory is never replaced)."""
    if path.is_dir():
        raise UserError(f"{path}: is a directory; name a file to write")
    if (path.exists() or path.is_symlink()) and not force:
        raise UserError(f"{path}: exists; give --force to replace it")
    return path
