"""What one file open costs under libiotwin_h5.so, in CPU time and system calls, not wall time.

A config adds a fixed cost to every file session (settings matched, hints merged into the
open's info, read back, the report line); on IOR's short iterations that fixed cost is the
overhead. Measured here as counts a loaded machine does not blur much:

- CPU: tests/programs/ior_like through MPI-IO on one rank (an MPICH singleton: no rank waits for
  another, whose busy polling would count as CPU), `--files` sessions of one 4 KiB write each,
  the process's user + system seconds (getrusage). Per open: the difference between runs of
  `--few` and `--many` files divided by the files between them, so that loading the library,
  MPI's start and the config's parse cancel out. Three sides: without the library, the library
  without a config, with the neutral config of interposer_overhead.py (or `--config`); the
  median of `--runs` runs of each, the sides interleaved.
- system calls (`--syscalls`, strace -f -c): the calls a file session adds, per open, by name,
  from one run of each size and side.

`--library` measures another build (an older one, say, to see what a change did). On a loaded
machine CPU seconds still vary by some percent between runs: compare medians, and say the load.

    .venv/bin/python bench/open_cost.py [--runs 15] [--few 100] [--many 1600] [--syscalls]
        [--library LIB] [--config cfg.yaml]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from interposer_overhead import config_in, library_env
from iotwin.core import paths

SIDES = ("without", "no config", "config")


def program(folder: Path, files: int) -> list[str]:
    return [str(paths.built("tests/programs/ior_like")), "--api", "mpiio", "--files",
            str(files), "--transfer", "4096", "--block", "4096", "--dir", str(folder)]


def side_env(side: str, folder: Path, config: Path, library: Path | None) -> dict[str, str]:
    if side == "without":
        return {}
    return library_env(folder, config if side == "config" else None, library=library)


def clear(folder: Path) -> None:
    for old in folder.glob("ior_like.*"):
        old.unlink()
    (folder / "report.jsonl").unlink(missing_ok=True)


def cpu_seconds(argv: list[str], env: dict[str, str], folder: Path) -> float:
    """User + system seconds of one run (its own process: MPICH's singleton has no launcher)."""
    clear(folder)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=600, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"run failed: {' '.join(argv)}\n{done.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_open_cpu(args: argparse.Namespace, folder: Path, config: Path) -> dict[str, float]:
    """CPU microseconds a file session costs per side: each run's (many - few) / span, the
    median over the runs; the library's sides also as the median of each run's difference
    with the side without it, measured beside it (drift in the machine's load cancels)."""
    span = args.many - args.few
    per_run: dict[str, list[float]] = {side: [] for side in SIDES}
    for _ in range(args.runs):
        for side in SIDES:
            env = side_env(side, folder, config, args.library)
            few = cpu_seconds(program(folder, args.few), env, folder)
            many = cpu_seconds(program(folder, args.many), env, folder)
            per_run[side].append(1e6 * (many - few) / span)
    result = {side: statistics.median(values) for side, values in per_run.items()}
    for side in SIDES[1:]:
        result[f"{side}, added"] = statistics.median(
            with_library - without
            for with_library, without in zip(per_run[side], per_run["without"], strict=True))
    return result


# a row of strace -c's table: "% time seconds usecs/call calls [errors] syscall"
STRACE_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$")


def syscalls(argv: list[str], env: dict[str, str], folder: Path) -> dict[str, int]:
    """strace -f -c's call counts of one run, by system call."""
    clear(folder)
    out = folder / "strace.txt"
    variables = [f"-E{name}={value}" for name, value in env.items()]
    subprocess.run(["strace", "-f", "-c", "-o", str(out), *variables, *argv],
                   capture_output=True, text=True, timeout=600, check=True)
    rows = (STRACE_ROW.match(line) for line in out.read_text().splitlines())
    return {row[2]: int(row[1]) for row in rows if row and row[2] != "total"}


def per_open_syscalls(args: argparse.Namespace, folder: Path,
                      config: Path) -> dict[str, dict[str, float]]:
    """System calls per file session, by name, per side."""
    span = args.many - args.few
    result = {}
    for side in SIDES:
        env = side_env(side, folder, config, args.library)
        few = syscalls(program(folder, args.few), env, folder)
        many = syscalls(program(folder, args.many), env, folder)
        result[side] = {name: (many.get(name, 0) - few.get(name, 0)) / span
                        for name in sorted(set(few) | set(many))}
    return result


def print_syscalls(counts: dict[str, dict[str, float]]) -> None:
    names = sorted({name for side in counts.values() for name, n in side.items()
                    if abs(n) >= 0.005})
    print("  system calls per file session (strace -f -c, one run per side and size):")
    print(f"    {'call':<16}" + "".join(f"{side:>12}" for side in SIDES))
    for name in names:
        print(f"    {name:<16}" + "".join(f"{counts[side].get(name, 0.0):>12.2f}"
                                         for side in SIDES))
    totals = {side: sum(counts[side].values()) for side in SIDES}
    print(f"    {'total':<16}" + "".join(f"{totals[side]:>12.2f}" for side in SIDES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per side and size")
    parser.add_argument("--few", type=int, default=100, help="file sessions of the small run")
    parser.add_argument("--many", type=int, default=1600, help="file sessions of the large run")
    parser.add_argument("--syscalls", action="store_true", help="count system calls (strace)")
    parser.add_argument("--library", type=Path, help="another build of the library to measure")
    parser.add_argument("--config", type=Path,
                        help="tuning config to load instead of the built-in neutral one")
    args = parser.parse_args()
    if args.many <= args.few:
        raise SystemExit(f"--many ({args.many}) must be larger than --few ({args.few})")
    if args.syscalls and not shutil.which("strace"):
        raise SystemExit("strace is not installed (apt-get install strace)")
    folder = Path(tempfile.mkdtemp(prefix="iotwin-open-cost-"))
    try:
        config = config_in(folder, args.config)
        library = args.library or paths.interposer_library()
        print(f"{library}: MPI-IO file sessions of one 4 KiB write, one rank, "
              f"{args.few} and {args.many} files, {args.runs} runs per side and size")
        cpu = per_open_cpu(args, folder, config)
        print("  CPU per file session (user + system, median of the runs): " + ", ".join(
            f"{side} {cpu[side]:.1f} us" for side in SIDES))
        print(f"  the library's (median of the runs' differences): "
              f"{cpu['no config, added']:+.1f} us without a config, "
              f"{cpu['config, added']:+.1f} us with one")
        if args.syscalls:
            print_syscalls(per_open_syscalls(args, folder, config))
    finally:
        shutil.rmtree(folder)


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--runs", "1", "--few", "2", "--many", "4", "--syscalls"]

if __name__ == "__main__":
    main()
