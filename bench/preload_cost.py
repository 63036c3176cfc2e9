"""What preloading libiotwin_h5.so costs a run with nothing to tune, in counts, not wall time.

A run without a config still pays the preload: the library and what it links loaded and
relocated at the start, its constructors, its hooks at MPI_Init and MPI_Finalize (the run's
record and the files' reports reduced over the ranks), and per file session the hooks.
Each is counted here in a figure a loaded machine does not blur, per program, without the
library and with it, no config, preloaded as `iotwin run` does (the report on) and as
`iotwin apply` does (no report):

- shared objects loaded and relocations processed (LD_DEBUG=statistics of each rank: at the
  start, and in all, lazy bindings included);
- system calls per rank (strace -f -c around each rank, the library preloaded into the program
  only);
- collectives per rank that make ranks wait (tests/programs/libmpi_call_count.so), and the
  nonblocking ones apart, in all and inside file sessions;
- the dynamic loader's time at the start (LD_DEBUG=statistics, cycles of the time-stamp counter:
  a wall-clock count, inflated on a loaded machine; the median over the ranks);
- instructions of a 1-rank run (MPICH singleton, callgrind), split by the object that executes
  them: the dynamic loader, the library itself, the MPI library, HDF5, libc, the rest; with an
  estimate in microseconds at one instruction a cycle at the CPU's nominal clock
  (/proc/cpuinfo): an order of magnitude, not a measurement.

The programs: tests/programs/ior_like through MPI-IO (no HDF5 linked), `--files` sessions of
4 MiB a rank; and stock IOR (linked to HDF5 by its own build) when `--ior PATH` is given.
`--library` measures another build (an older one: what a change did).

    .venv/bin/python bench/preload_cost.py [--ranks 2] [--files 10] [--ior PATH
        [--ior-args ARGS]] [--library LIB] [--no-instructions]
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from interposer_overhead import (
    IOR_ARGS,
    NONBLOCKING,
    collective_calls,
    ior_like_sessions,
    library_env,
    on_ranks,
    resolve_name,
    stock_ior,
)
from iotwin.core import paths
from open_cost import STRACE_ROW
from support.mpi_call_count import IN_SESSION  # on the path interposer_overhead set

SIDES = ("without", "run", "apply")


def components(library: Path) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The objects a 1-rank run's instructions are split by: (component, name pattern), the
    first that matches."""
    return (("dynamic loader", re.compile(r"ld-linux")),
            ("the library itself", re.compile(re.escape(library.name))),
            ("MPI (MPICH, UCX, hwloc)", re.compile(r"libmpi|libuc[pstm]|libhwloc|libfabric")),
            ("HDF5", re.compile(r"libhdf5")),
            ("libc", re.compile(r"libc\.so")),
            ("the rest (program, libm, yaml, ...)", re.compile(r"")))


def run_env(side: str, folder: Path, library: Path | None) -> dict[str, str]:
    """The ranks' environment: without the library, as `iotwin run` preloads it, or as
    `iotwin apply` does (no report)."""
    env = library_env(folder, None, library=library) if side != "without" else {}
    if side == "apply":
        del env["IOTWIN_REPORT"]
    return env


def loader_statistics(ranks: int, argv: list[str], env: dict[str, str],
                      folder: Path) -> dict[str, float]:
    """Per rank (the median over the ranks): relocations at the start and in all, and the
    loader's cycles at the start."""
    for old in folder.glob("ld.*"):
        old.unlink()
    on_ranks(ranks, argv, {**env, "LD_DEBUG": "statistics",
                           "LD_DEBUG_OUTPUT": str(folder / "ld")})
    found: dict[str, list[int]] = {name: [] for name in LOADER_FIGURES}
    for log in folder.glob("ld.*"):
        for name, pattern in LOADER_FIGURES.items():
            found[name] += [int(n) for n in pattern.findall(log.read_text())][:1]
    if not all(found.values()):
        raise SystemExit(f"no LD_DEBUG statistics from {' '.join(argv)}")
    return {name: statistics.median(values) for name, values in found.items()}


LOADER_FIGURES = {
    "relocations at the start": re.compile(r"\s number of relocations: (\d+)"),
    "relocations in all (lazy bindings too)": re.compile(r"final number of relocations: (\d+)"),
    "loader cycles at the start (load blurs it)":
        re.compile(r"total startup time in dynamic loader: (\d+)")}


def objects_loaded(argv: list[str], env: dict[str, str]) -> int:
    """Shared objects the program starts with (ldd, the preload included)."""
    done = subprocess.run(["ldd", argv[0]], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=60, check=True)
    return len(done.stdout.splitlines())


def syscalls(ranks: int, argv: list[str], env: dict[str, str], folder: Path) -> float:
    """System calls per rank (strace -f -c around each rank; the preload in the program only)."""
    for old in folder.glob("strace.*"):
        old.unlink()
    # sh's $0: each rank's output file, named by its rank
    wrapper = ["sh", "-c", 'exec strace -f -c -o "$0.$PMI_RANK" "$@"', str(folder / "strace"),
               *[f"-E{name}={value}" for name, value in env.items()], *argv]
    done = on_ranks(ranks, wrapper, {})
    if done.returncode != 0:
        raise SystemExit(f"strace run failed: {' '.join(argv)}\n{done.stderr.strip()}")
    totals = []
    for out in folder.glob("strace.*"):
        rows = (STRACE_ROW.match(line) for line in out.read_text().splitlines())
        totals.append(sum(int(row[1]) for row in rows if row and row[2] != "total"))
    return statistics.mean(totals)


def self_instructions(out: Path) -> dict[str, int]:
    """Instructions executed in each object of a callgrind profile (self cost: a call's
    inclusive line is its callee's, counted there)."""
    names: dict[str, dict[str, str]] = {"ob": {}, "fn": {}}
    by_object: dict[str, int] = {}
    obj = ""
    after_call = False
    for line in out.read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "ob":
            obj = resolve_name(names["ob"], value)
        elif key in ("cob", "fn", "cfn"):
            resolve_name(names[key[-2:]], value)
        elif key == "calls":
            after_call = True
        elif (line[:1].isdigit() or line[:1] in "+-*") and len(line.split()) > 1:
            if not after_call:
                by_object[obj] = by_object.get(obj, 0) + int(line.split()[-1])
            after_call = False
    return by_object


def by_component(out: Path, library: Path) -> dict[str, int]:
    parts = components(library)
    result = dict.fromkeys((name for name, _ in parts), 0)
    for obj, count in self_instructions(out).items():
        name = next(name for name, pattern in parts if pattern.search(obj))
        result[name] += count
    return result


def instructions(argv: list[str], env: dict[str, str], folder: Path,
                 library: Path) -> dict[str, int]:
    out = folder / "callgrind.out"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=1800, check=False)
    if done.returncode != 0:
        raise SystemExit(f"callgrind run failed: {' '.join(command)}\n{done.stderr.strip()}")
    return by_component(out, library)


def cycle_seconds() -> float:
    """The CPU's nominal cycle time (the first `cpu MHz` of /proc/cpuinfo)."""
    match = re.search(r"^cpu MHz\s*:\s*([\d.]+)", Path("/proc/cpuinfo").read_text(), re.MULTILINE)
    if not match:
        raise SystemExit("no `cpu MHz` in /proc/cpuinfo")
    return 1e-6 / float(match[1])


def print_counts(label: str, counts: dict[str, float], unit: Callable[[float], str] | None = None
                 ) -> None:
    """A row: without the library, then each side with it and what it adds."""
    without = counts["without"]
    cells = "".join(f"{counts[side]:>14,.0f}{counts[side] - without:>+10,.1f}"
                    + (unit(counts[side] - without) if unit else "") for side in SIDES[1:])
    print(f"    {label:<40}{without:>14,.0f}{cells}")


def print_instructions(argv: list[str], folder: Path, library: Path) -> None:
    counted = {side: instructions(argv, run_env(side, folder, library), folder, library)
               for side in SIDES}
    cycle = cycle_seconds()
    print("  instructions of a 1-rank run (callgrind), by the object executing them; what the "
          f"library adds at one instruction a cycle of {1e-6 / cycle:,.0f} MHz:")

    def micro(added: float) -> str:
        return f" ~{1e6 * cycle * added:>6,.0f} us"
    for name, _ in components(library):
        print_counts(name, {side: counted[side][name] for side in SIDES}, micro)
    print_counts("total", {side: float(sum(counted[side].values())) for side in SIDES}, micro)


def measure(label: str, argv: Callable[[], list[str]], args: argparse.Namespace,
            folder: Path) -> None:
    print(f"{label}, {args.ranks} ranks; per rank: without the library; preloaded as `iotwin "
          "run` does (report on), what it adds; as `iotwin apply` does (no report), what it adds")
    envs = {side: run_env(side, folder, args.library) for side in SIDES}
    print_counts("shared objects at the start (ldd)",
                 {side: objects_loaded(argv(), envs[side]) for side in SIDES})
    loader = {side: loader_statistics(args.ranks, argv(), envs[side], folder) for side in SIDES}
    for name in LOADER_FIGURES:
        print_counts(name, {side: loader[side][name] for side in SIDES})
    print_counts("system calls", {side: syscalls(args.ranks, argv(), envs[side], folder)
                                  for side in SIDES})
    calls = {side: collective_calls(args.ranks, argv(), envs[side], folder) for side in SIDES}
    for name in sorted(calls["without"]):
        if any(calls[side][name] != calls["without"][name] for side in SIDES):
            kind = "nonblocking" if name.removesuffix(IN_SESSION) in NONBLOCKING else "waits"
            print_counts(f"{name} ({kind})", {side: calls[side][name] for side in SIDES})
    if args.instructions:
        print_instructions(argv(), folder, args.library or paths.interposer_library())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2, help="ranks of the counted runs")
    parser.add_argument("--files", type=int, default=10, help="ior_like's file sessions")
    parser.add_argument("--ior", type=Path, metavar="PATH", help="stock IOR's binary")
    parser.add_argument("--ior-args", default=IOR_ARGS, help="IOR's options (with --ior)")
    parser.add_argument("--library", type=Path, help="another build of the library to measure")
    parser.add_argument("--no-instructions", dest="instructions", action="store_false")
    args = parser.parse_args()
    for tool in ("strace", "ldd") + (("valgrind",) if args.instructions else ()):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is not installed")
    folder = Path(tempfile.mkdtemp(prefix="iotwin-preload-cost-"))
    try:
        print(f"library: {args.library or paths.interposer_library()}")
        sessions = ior_like_sessions(folder, "mpiio", args.files, 4, args.ranks)
        measure(f"ior_like, {args.files} MPI-IO files of 4 MiB a rank",
                functools.partial(sessions.argv, args.ranks), args, folder)
        if args.ior:
            ior = stock_ior(folder, args.ior.resolve(), args.ior_args, args.ranks)
            measure(f"IOR {args.ior_args}", functools.partial(ior.argv, args.ranks), args,
                    folder)
    finally:
        shutil.rmtree(folder)


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size,
#: on 1 rank (the same paths, without MPICH's ranks spinning while they wait)
SMOKE_ARGS = ["--files", "1", "--ranks", "1"]

if __name__ == "__main__":
    main()
