"""The `iotwin` command. Each subcommand lives in its own module under iotwin.commands.

A command module defines ``register(subparsers) -> None``, which adds its parser and sets
``func`` (taking the parsed namespace, returning an exit status) with ``set_defaults``.

Every failure reaches the user as one line on stderr: bad input (UserError) and a file that
cannot be read or written exit with status 2, anything else is an internal error (status
70, sysexits' EX_SOFTWARE) and says so. ``iotwin --debug`` prints the traceback first.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys
import traceback

from iotwin import __version__, commands
from iotwin.core.errors import UserError
from iotwin.core.text import one_line
from iotwin.model import sim_cluster

#: exit status of bad input; of an internal error (sysexits.h's EX_SOFTWARE)
USER_ERROR_STATUS = 2
INTERNAL_ERROR_STATUS = 70


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone when it names one:
    importing a command's module imports what it runs (numpy, the search strategies, the
    store), so `iotwin run` need not import what `iotwin tune` uses, and the same command
    line parses alike either way (each command's parser is its module's own)."""
    parser = argparse.ArgumentParser(
        prog="iotwin",
        description="Tune parallel HDF5 / MPI-IO / Lustre-GPFS I/O with calibrated simulations "
        "and a few real runs.",
    )
    parser.add_argument("--version", action="version", version=f"iotwin {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="print the Python traceback of any error before its one line")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    names = _command_names()
    for name in [command] if command in names else names:
        importlib.import_module(f"iotwin.commands.{name}").register(subparsers)
    return parser


def _command_names() -> list[str]:
    """The commands: iotwin.commands' modules, each registering the command of its name."""
    return sorted(module.name for module in pkgutil.iter_modules(commands.__path__)
                  if not module.name.startswith("_"))  # "_": shared by the commands


def _command_word(argv: list[str]) -> str | None:
    """The command a command line names: its first word that is not an option (the top
    level's options, --debug and --version, take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(_command_word(words))
    args = parser.parse_args(words)
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    # SIGINT as Ctrl-C, even where iotwin was started with it ignored (a script's
    # background job): a user's interrupt must end the command, not be lost
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sim_cluster.use(getattr(args, "sim_cluster", None))
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("iotwin: interrupted; everything measured so far is in the store", file=sys.stderr)
        return 143 if _terminated else 130
    except Exception as error:  # every failure ends in one line, whatever raised it
        if args.debug:
            traceback.print_exc()
        line, status = describe_failure(error, args.debug)
        print(f"iotwin: {line}", file=sys.stderr)
        return status


def describe_failure(error: Exception, debug: bool = False) -> tuple[str, int]:
    """The one line a failure is reported as, and the exit status."""
    if isinstance(error, UserError):
        return f"error: {one_line(str(error))}", USER_ERROR_STATUS
    if isinstance(error, OSError) and error.strerror:
        # a file iotwin reads or writes (an output, the working directory): its name and why
        where = f"{error.filename}: " if error.filename is not None else ""
        return f"error: {one_line(f'{where}{error.strerror}')}", USER_ERROR_STATUS
    hint = "" if debug else "; run with --debug for the traceback"
    return (f"internal error: {one_line(f'{type(error).__name__}: {error}')}{hint}",
            INTERNAL_ERROR_STATUS)


_terminated = False


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (timeout(1)'s, a scheduler's) is handled as Ctrl-C is: the running program's
    processes are killed, and what was measured is kept. It must be KeyboardInterrupt itself:
    subprocess.Popen's exit waits for the child on any other exception. Worker processes
    are spawned, not forked (core.worker_pool): none inherits this handler, and a pool's
    SIGTERM ends them as its default does, without a traceback."""
    global _terminated
    _terminated = True
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
