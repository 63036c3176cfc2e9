"""The `iotwin` command. Each subcommand lives in its own module under iotwin.commands.

A command module defines ``register(subparsers) -> None``, which adds its parser and sets
``func`` (taking the parsed namespace, returning an exit status) with ``set_defaults``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys

from iotwin import __version__, commands
from iotwin.core.errors import UserError
from iotwin.model import sim_cluster


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iotwin",
        description="Tune parallel HDF5 / MPI-IO / Lustre-GPFS I/O with calibrated simulations "
        "and a few real runs.",
    )
    parser.add_argument("--version", action="version", version=f"iotwin {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):  # shared by the commands, not one of them
            continue
        module = importlib.import_module(f"iotwin.commands.{module_info.name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    try:
        sim_cluster.use(getattr(args, "sim_cluster", None))
        return int(args.func(args) or 0)
    except UserError as error:
        print(f"iotwin: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("iotwin: interrupted; everything measured so far is in the store", file=sys.stderr)
        return 143 if _terminated else 130


_terminated = False


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (timeout(1)'s, a scheduler's) is handled as Ctrl-C is: the running program's
    processes are killed, and what was measured is kept. It must be KeyboardInterrupt itself:
    subprocess.Popen's exit waits for the child on any other exception."""
    global _terminated
    _terminated = True
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
