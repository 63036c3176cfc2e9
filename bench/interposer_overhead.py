"""Overhead of libiotwin_h5.so on programs that make many small HDF5 or MPI-IO calls.

Kernels where per-call costs of the interposer (hooks, timing, read-back at open and at
H5Dclose, the report at each close) show most:
- one dataset, many writes: `replay` of a one-dataset workload whose `access_elements` cuts
  each rank's block into `--writes` small H5Dwrite calls;
- many datasets: `vorpal-io` with many time steps of small blocks (hundreds of small datasets,
  one write each);
- many file sessions, as EPCC's benchio makes them (by its published description): every rank
  2 MiB of a 3-D array, each of `--files` files opened, written collectively and closed, once
  through HDF5 and once through MPI-IO (tests/programs/file_sessions.c); measured on
  `--session-ranks` ranks (2, one per core of this machine);
- IOR-like file sessions (tests/programs/ior_like.c: IOR's segmented pattern, each of
  `--files` sessions a shared file of `--ior-like-segments` segments of a 1 MiB block a rank
  in 256 KiB transfers, created, written and closed), through MPI-IO (MPI_File_write_at) and
  through POSIX calls (pwrite), on `--session-ranks` ranks;
- stock IOR itself, when `--ior PATH` names its binary (built from its own sources, outside
  this repository): `PATH --ior-args ... -o FILE` on `--session-ranks` ranks, timed by IOR's
  own figures (the total(s) of each of its result rows: open to close of each iteration's
  phase), each iteration a file session.
Each runs without a config and with one (mpiio hints, hdf5 alignment, dataset settings) whose
values do not change the I/O HDF5 does (defaults, or an alignment threshold above every
dataset's size), so both sides do the same I/O and only the interposer's own work differs.
The kernels run with --no-sync: the library adds CPU time per call; device flushes would only
add noise.

Three figures per case:
- instructions: `valgrind --tool=callgrind` totals of a 1-rank run (MPICH singleton) with and
  without the library: repeatable whatever else the machine runs. The difference splits into
  the library's own work (its hooks' inclusive counts minus those of the real HDF5 calls they
  make) and what the settings it applied cost inside HDF5 / ROMIO (with a config: ROMIO
  parses the file's hints again in every MPI_File_set_view HDF5 makes, one per write; an
  application passing the same hints itself pays that too);
- wall clock: runs on `--ranks` ranks in pairs with and without the library, each side first
  in every other pair, so drift hits both sides; the ratio of the medians of the kernel's
  open -> close time, and the pairs' own ratio (Hodges-Lehmann) with its exact signed-rank
  interval (iotwin.core.stats.paired_speedup). The library is preloaded into the ranks only
  (mpiexec's `-genv`, as `iotwin apply` does): a preload of mpiexec itself costs each launch
  tens of ms and is no part of what a production job pays.
- collectives: the MPI calls that make ranks wait for each other (MPI_Comm_dup included),
  counted per process by tests/programs/libmpi_call_count.so preloaded before the library, on
  the wall-clock runs' ranks; the library's are the difference with and without it, per file
  session, in all and inside the file sessions (nonblocking ones, MPI_Iallreduce, listed apart:
  no rank waits for them).
  On a machine with more ranks than cores, each collective can cost a rank a scheduler slice.
The overhead a program sees is the wall-clock ratio (target: below 1.02). The instructions say
where the library's time goes and how much work it does per write, dataset or file session, in
a count that does not drift; as a share of a run they are no overhead: a run's instructions are
mostly MPI's start, which no program's timer holds, and none of the kernel's time copying data.

A third variant turns workload capture on (IOTWIN_CAPTURE, no config) and prints what it adds
to the library's instructions without it (target below 2 %).

`--library` measures another build of the library against the same programs, e.g. the one a
slowdown was reported on: `git worktree add /tmp/then REV && cmake -S /tmp/then -B
/tmp/then/build -DCMAKE_BUILD_TYPE=RelWithDebInfo && make -C /tmp/then/build iotwin_h5`, then
`--library /tmp/then/build/interposer/libiotwin_h5.so`; and `--library
build/tests/programs/libhook_passthrough.so`, a preload that hooks the same calls and passes
each straight on, measures what hooking alone costs.

    .venv/bin/python bench/interposer_overhead.py [--runs 40] [--ranks 2] [--steps 100]
        [--writes 2000] [--files 10] [--session-ranks 2] [--config cfg.yaml] [--library LIB]
        [--cases many-writes,many-datasets,sessions-hdf5,sessions-mpiio,sessions-ior-mpiio,
        sessions-ior-posix] [--ior PATH [--ior-args ARGS]] [--no-wall] [--no-instructions]
        [--no-collectives] [--no-capture] [--no-report]

The IOR-like overhead on a quiet machine, 2 ranks, wall clock only:

    nice -n -10 .venv/bin/python bench/interposer_overhead.py --no-instructions \
        --no-collectives --no-capture --runs 100 --cases sessions-ior-mpiio,sessions-ior-posix \
        --ior /tmp/ior-src/src/ior

With instructions counted, a closing table lists each case: instructions without the library,
and the library's own work per write, dataset or file session (no config, config), with its
share of the whole run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml
from iotwin.core import paths
from iotwin.core.stats import paired_speedup
from iotwin.executors import launch
from iotwin.workloads.replication.sessions import dataset, session, workload

# the MPI call counter is the interposer tests' (tests/support/mpi_call_count.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.mpi_call_count import counted_calls, split_sessions

# Exercises every applying and read-back path; the values equal what HDF5 / ROMIO would do anyway
# (alignment threshold above the datasets' sizes: nothing is aligned; alloc_time early is what
# parallel HDF5 forces; the kernels write collectively).
NEUTRAL_CONFIG = """\
mpiio:
  romio_cb_write: automatic
  cb_buffer_size: 16MiB
  romio_ds_write: automatic
hdf5:
  alignment: {threshold: 64MiB, boundary: 1MiB}
dataset:
  alloc_time: early
  transfer_mode: collective
"""

ACCESS_ELEMENTS = 256   # float64: 2 KiB per H5Dwrite
CASES = ("many-writes", "many-datasets", "sessions-hdf5", "sessions-mpiio",
         "sessions-ior-mpiio", "sessions-ior-posix")
#: IOR's own options of the `--ior` case: MPI-IO, one shared file, 1 MiB transfers of a 4 MiB
#: block a rank, write only, 10 iterations (file sessions), the file kept between them
IOR_ARGS = "-a MPIIO -t 1m -b 4m -s 1 -w -i 10 -k"


@dataclass
class Timing:
    """One run's kernel time; a session kernel's also split into its first session and the
    rest (the first carries what a library does once, at its first open)."""

    total: float
    first: float | None = None
    later: float | None = None


def sessions_timing(total: float, sessions: list[float] | None) -> Timing:
    if not sessions or len(sessions) < 2:
        return Timing(total)
    return Timing(total, sessions[0], sum(sessions[1:]))


def json_timing(stdout: str) -> Timing:
    """The kernels' and test programs' JSON line: total_s, and sessions_s where they make
    several file sessions."""
    line = json.loads(stdout.strip().splitlines()[-1])
    return sessions_timing(float(line["total_s"]), line.get("sessions_s"))


# a row of IOR's result table: access, bw(MiB/s), IOPS, latency, block, xfer, open, wr/rd,
# close, total(s), iter
IOR_ROW = re.compile(r"^(write|read)\s+(\S+\s+){8}(?P<total>[0-9.]+)\s+\d+\s*$", re.MULTILINE)


def ior_timing(stdout: str) -> Timing:
    """IOR's own time of each phase it ran (its result rows' total(s)), each a file session."""
    rows = [float(match["total"]) for match in IOR_ROW.finditer(stdout)]
    if not rows:
        raise SystemExit(f"no result rows in IOR's output:\n{stdout[-2000:]}")
    return sessions_timing(sum(rows), rows)


@dataclass
class Kernel:
    label: str
    argv: Callable[[int], list[str]]   # command line for a run on that many ranks
    unit: str                          # what it makes many of: "write", "dataset", ...
    units: int                         # how many, per rank and run
    ranks: int | None = None           # its wall-clock ranks (None: --ranks)
    sessions: int = 1                  # file sessions per run
    timing: Callable[[str], Timing] = json_timing   # its time, from its output


def many_writes(folder: Path, writes: int) -> Kernel:
    def argv(ranks: int) -> list[str]:
        spec = folder / f"one-dataset-{ranks}.yaml"
        per_rank = [writes * ACCESS_ELEMENTS] * ranks
        files = [session("one-dataset.h5", "checkpoint",
                         [dataset("/data", 8, per_rank, transfer="collective",
                                  access_elements=ACCESS_ELEMENTS)])]
        spec.write_text(yaml.safe_dump(workload("one-dataset", "interposer_overhead", ranks,
                                                files)))
        return [str(paths.kernel_binary("replay")), "--dir", str(folder), "--no-sync", str(spec)]
    return Kernel(f"replay, 1 dataset x {writes} writes of {ACCESS_ELEMENTS * 8} B per rank",
                  argv, "write", writes)


def many_datasets(folder: Path, steps: int, block: str) -> Kernel:
    def argv(ranks: int) -> list[str]:
        del ranks
        return [str(paths.kernel_binary("vorpal-io")), "--file", str(folder / "v.h5"),
                "--steps", str(steps), "--block", block, "--no-sync"]
    return Kernel(f"vorpal-io, {steps} steps x 3 datasets of {block} per rank", argv,
                  "dataset", 3 * steps)


def file_sessions(folder: Path, api: str, files: int, ranks: int) -> Kernel:
    """benchio-like: `files` sessions of 2 MiB per rank (a 64^3 block of doubles each)."""
    def argv(_ranks: int) -> list[str]:
        for old in folder.glob("session*"):
            old.unlink()
        return [str(paths.built("tests/programs/file_sessions")), "--api", api, "--files",
                str(files), "--n", "64", "--dir", str(folder)]
    return Kernel(f"file_sessions, {files} {api} files of 2 MiB per rank", argv,
                  "file session", files, ranks, files)


def ior_like_sessions(folder: Path, api: str, files: int, segments: int, ranks: int) -> Kernel:
    """IOR-like: `files` sessions of a shared file, each rank `segments` blocks of 1 MiB in
    256 KiB transfers (tests/programs/ior_like.c)."""
    def argv(_ranks: int) -> list[str]:
        for old in folder.glob("ior_like.*"):
            old.unlink()
        return [str(paths.built("tests/programs/ior_like")), "--api", api, "--files",
                str(files), "--segments", str(segments), "--block", str(2**20), "--transfer",
                str(2**18), "--dir", str(folder)]
    return Kernel(f"ior_like, {files} {api} files of {segments} MiB per rank in 256 KiB "
                  "transfers", argv, "file session", files, ranks, files)


def stock_ior(folder: Path, ior: Path, ior_args: str, ranks: int) -> Kernel:
    """IOR itself, built from its own sources: its iterations are the file sessions."""
    words = shlex.split(ior_args)
    iterations = int(words[words.index("-i") + 1]) if "-i" in words else 1

    def argv(_ranks: int) -> list[str]:
        for old in folder.glob("ior.dat*"):
            old.unlink()
        return [str(ior), *words, "-o", str(folder / "ior.dat")]
    return Kernel(f"IOR {ior_args}", argv, "file session", iterations, ranks, iterations,
                  ior_timing)


def config_in(folder: Path, given: Path | None) -> Path:
    """The config to measure with: the one given, else the neutral one, written into folder."""
    if given:
        return given.resolve()
    config = folder / "neutral-config.yaml"
    config.write_text(NEUTRAL_CONFIG)
    return config


def library_env(folder: Path, config: Path | None, capture: bool = False,
                library: Path | None = None) -> dict[str, str]:
    env = {"LD_PRELOAD": str(library or paths.interposer_library()),
           "IOTWIN_REPORT": str(folder / "report.jsonl")}
    if config:
        env["IOTWIN_CONFIG"] = str(config)
    if capture:
        env["IOTWIN_CAPTURE"] = str(folder / "capture.jsonl")
    return env


LIBRARY = "libiotwin_h5"
# a callgrind name entry: "(id) name" defines an id, "(id)" refers to it
NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


@dataclass
class Counts:
    total: int   # the whole run
    own: int     # inside the library's hooks, not inside the real HDF5 calls they make


def resolve_name(space: dict[str, str], value: str) -> str:
    match = NAMED.match(value)
    if not match:
        return value
    if match[2] is not None:
        space[match[1]] = match[2]
    return space[match[1]]


def call_arcs(out: Path) -> dict[tuple[str, str, str, str], int]:
    """(caller object, caller, callee object, callee) -> inclusive instructions of those calls,
    read from callgrind's own file (callgrind_annotate's listing can split a function)."""
    names: dict[str, dict[str, str]] = {"ob": {}, "fn": {}}
    arcs: dict[tuple[str, str, str, str], int] = {}
    obj = fn = callee_obj = callee = ""
    pending_call = False
    for line in out.read_text().splitlines():
        key, _, value = line.partition("=")
        if key in ("ob", "cob", "fn", "cfn"):
            name = resolve_name(names[key[-2:]], value)
            if key == "ob":
                obj = callee_obj = name
            elif key == "cob":
                callee_obj = name
            elif key == "fn":
                fn = name
            else:
                callee = name
        elif key == "calls":
            pending_call = True
        elif pending_call:
            arc = (obj, fn, callee_obj, callee)
            arcs[arc] = arcs.get(arc, 0) + int(line.split()[1])
            pending_call = False
            callee_obj = obj
    return arcs


# the library's hooks: HDF5's and MPI's calls, and the POSIX writes it counts
HOOK = re.compile(r"^(H5|P?MPI_)|^(write|pwrite|pwrite64|writev|fwrite|close)$")


def callgrind_counts(out: Path) -> Counts:
    """The library's own work: calls into its hooks (from the application, and from the library
    itself: their real calls are subtracted with the hook's), minus the real HDF5, MPI and
    POSIX calls the hooks pass on."""
    total = next(int(line.split()[1]) for line in out.read_text().splitlines()
                 if line.startswith(("summary:", "totals:")))
    arcs = call_arcs(out)
    hooked = {callee for (_, _, callee_obj, callee) in arcs
              if LIBRARY in callee_obj and HOOK.match(callee)}   # this build's hooks
    own = 0
    for (caller_obj, _, callee_obj, callee), count in arcs.items():
        if callee not in hooked:
            continue
        if LIBRARY in callee_obj:
            own += count   # from the application, or from the library's own code
        elif LIBRARY in caller_obj:
            own -= count   # the real HDF5 call a hook passes on
    return Counts(total, own)


def instructions(argv: list[str], env: dict[str, str], out: Path) -> Counts:
    """Instructions executed by a 1-rank run (MPICH singleton), counted by callgrind."""
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]
    done = subprocess.run(command, env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=1800, check=False)
    if done.returncode != 0:
        raise SystemExit(f"callgrind run failed: {' '.join(command)}\n{done.stderr.strip()}")
    return callgrind_counts(out)


@functools.cache
def instructions_without(argv: tuple[str, ...], out: Path) -> int:
    """A 1-rank run's instructions without the library: the same run for each variant of a
    case (no config, config, capture on), so counted once."""
    return instructions(list(argv), {}, out).total


NONBLOCKING = ("MPI_Iallreduce",)


def on_ranks(ranks: int, argv: list[str], env: dict[str, str]) -> launch.Completed:
    """``argv`` on ``ranks`` ranks of MPICH's mpiexec, ``env`` given to the ranks only
    (`-genv`, as `iotwin apply` does), not to the launcher."""
    options = " ".join(map(shlex.quote, launch.known_launcher("mpich").rank_options(env)))
    ranks_only = launch.Launcher("mpich-ranks", f"{shlex.quote(launch.mpiexec())} {options} "
                                 "-n {ranks} {program}")
    return launch.run_mpi(ranks, argv, using=ranks_only, timeout=600)


def collective_calls(ranks: int, argv: list[str], env: dict[str, str],
                     folder: Path) -> dict[str, float]:
    """MPI calls that synchronise ranks, per rank (the mean over the ranks), counted by the
    preloaded counter."""
    try:
        counts = counted_calls(lambda counter_env: on_ranks(ranks, argv, counter_env), env,
                               folder)
    except RuntimeError as failed:
        raise SystemExit(f"{' '.join(argv)}: {failed}") from failed
    return {name: sum(rank[name] for rank in counts) / len(counts) for name in counts[0]}


def waiting_calls(counts: dict[str, float]) -> tuple[float, str]:
    """The calls that make ranks wait, summed, and each call's count."""
    detail = ", ".join(f"{name} {n:+.1f}" for name, n in counts.items() if n)
    return sum(n for name, n in counts.items() if name not in NONBLOCKING), detail or "none"


def print_collectives(kernel: Kernel, env: dict[str, str], folder: Path, ranks: int) -> None:
    """Per rank and file session: the library's collectives in all, and those it makes inside
    the sessions (from an MPI_File_open's entry to its MPI_File_close's return)."""
    without = collective_calls(ranks, kernel.argv(ranks), {}, folder)
    with_library = collective_calls(ranks, kernel.argv(ranks), env, folder)
    added = {name: (with_library[name] - without[name]) / kernel.sessions for name in without}
    added_outside, added_inside = split_sessions(added)
    waiting, detail = waiting_calls(added_outside)
    waiting_inside, detail_inside = waiting_calls(added_inside)
    own = sum(n for name, n in split_sessions(without)[0].items()
              if name not in NONBLOCKING) / kernel.sessions
    print(f"  collectives per rank and file session, {ranks} ranks: the program's {own:.1f}, "
          f"the library's {waiting:+.1f} that wait ({detail}); inside the file sessions "
          f"{waiting_inside:+.1f} ({detail_inside})")


def kernel_seconds(kernel: Kernel, ranks: int, env: dict[str, str]) -> Timing:
    argv = kernel.argv(ranks)
    done = on_ranks(ranks, argv, env)
    if done.returncode != 0:
        raise SystemExit(f"run failed: {' '.join(argv)}\n{done.stderr.strip()}")
    return kernel.timing(done.stdout)


def wall_clock(kernel: Kernel, ranks: int, env: dict[str, str],
               runs: int) -> dict[str, list[Timing]]:
    times: dict[str, list[Timing]] = {"without": [], "with": []}
    kernel_seconds(kernel, ranks, {})   # warm-up: page cache, first touch of the binaries
    sides = {"without": {}, "with": env}
    for i in range(runs):   # ABBA...: each side goes first in every other pair
        for side in (("without", "with") if i % 2 == 0 else ("with", "without")):
            times[side].append(kernel_seconds(kernel, ranks, sides[side]))
    return times


def paired_ratio(without: list[float], with_library: list[float]) -> str:
    """with / without per pair: a rate ratio with the rates' roles swapped."""
    paired = paired_speedup([1 / t for t in with_library], [1 / t for t in without])
    if not paired:
        return "nan"
    interval = (f" [{paired.low:.4f}-{paired.high:.4f}] ({paired.confidence:.1%} exact "
                "signed-rank interval on the pairs' log ratios)"
                if paired.low is not None else "")
    return f"{paired.estimate:.4f}{interval}"


def print_wall_clock(times: dict[str, list[Timing]], ranks: int, runs: int) -> None:
    totals = {side: [t.total for t in values] for side, values in times.items()}
    medians = {side: statistics.median(values) for side, values in totals.items()}
    spread = ", ".join(f"{side} {medians[side]:.4f} s [{min(v):.4f}..{max(v):.4f}]"
                       for side, v in totals.items())
    print(f"  wall clock, {ranks} ranks, {runs} runs per side: medians {spread}; "
          f"ratio of the medians {medians['with'] / medians['without']:.4f}; paired "
          f"(pseudo-median of with / without) {paired_ratio(totals['without'], totals['with'])}")
    if any(t.later is None for values in times.values() for t in values):
        return
    later = {side: [t.later or 0.0 for t in values] for side, values in times.items()}
    extra = statistics.median(w.first - o.first for w, o in zip(times["with"], times["without"],
                                                               strict=True)
                              if w.first is not None and o.first is not None)
    print(f"    sessions after the first: paired {paired_ratio(later['without'], later['with'])}"
          f"; the first session: {1e3 * extra:+.3f} ms with the library (median of the pairs' "
          "differences)")


def report_calls(folder: Path) -> tuple[int, int]:
    """Write calls and datasets of the last file the library reported."""
    lines = [json.loads(line) for line in (folder / "report.jsonl").read_text().splitlines()]
    line = [line for line in lines if "iotwin_report" in line][-1]
    return int(line["writes"]), len(line["datasets"])


@dataclass
class Row:
    """A case's instruction counts (callgrind, 1 rank) for the closing table."""

    case: str
    kernel: Kernel
    without: int
    counts: dict[str, Counts]   # "no config" / "config" -> with the library


def print_table(rows: list[Row]) -> None:
    """One line per case: the library's own work per write, dataset or file session (a count
    that repeats whatever else the machine runs), and as a share of the whole run's
    instructions. Neither is the overhead a program sees: a run's instructions are mostly MPI's
    start (~25 M in an MPICH singleton), which no program's timer holds, and none of the
    kernel's time copying the data; the wall-clock ratios are that overhead."""
    print("\ninstructions, 1 rank: the library's own work per unit the case makes many of "
          "(in brackets: / the whole run's instructions without it)")
    print(f"{'case':<16} {'without (M)':>11} {'unit':>13} {'no config':>19} {'config':>19}")
    for row in rows:
        cells = [f"{row.counts[side].own / row.kernel.units:7.0f} "
                 f"({100 * row.counts[side].own / row.without:4.2f} %)"
                 for side in ("no config", "config")]
        print(f"{row.case:<16} {row.without / 1e6:11.1f} {row.kernel.unit:>13} {cells[0]:>19} "
              f"{cells[1]:>19}")


def measure(kernel: Kernel, config: Path | None, args: argparse.Namespace, folder: Path,
            count_instructions: bool, capture: bool = False) -> tuple[int, Counts] | None:
    """Prints the figures; returns the instruction counts without and with the library when
    ``count_instructions``."""
    env = library_env(folder, config, capture, args.library)
    print(f"{kernel.label}; config: {config.name if config else 'none'}"
          f"{'; capture on' if capture else ''}")
    figures = None
    if count_instructions:
        argv = kernel.argv(1)
        without = instructions_without(tuple(argv), folder / "callgrind.without")
        counts = instructions(argv, env, folder / "callgrind.with")
        writes, datasets = report_calls(folder)
        print(f"  instructions, 1 rank ({writes} writes, {datasets} datasets): without "
              f"{without / 1e6:.1f} M, with {counts.total / 1e6:.1f} M, ratio "
              f"{counts.total / without:.4f}")
        own, rest = counts.own, counts.total - without - counts.own
        print(f"    the library's own work: {own / 1e6:.2f} M ({own / max(writes, 1):.0f} per "
              f"write, {own / max(datasets, 1):.0f} per dataset, "
              f"{own / kernel.sessions:.0f} per file session), ratio (without + own) / "
              f"without {(without + own) / without:.4f}; inside HDF5 / MPI and loading the "
              f"library: {rest / 1e6:.2f} M")
        figures = without, counts
    if not args.report:   # as `iotwin apply` preloads it
        env = {name: value for name, value in env.items() if name != "IOTWIN_REPORT"}
    if args.collectives:
        print_collectives(kernel, env, folder, kernel.ranks or args.ranks)
    if args.wall:
        ranks = kernel.ranks or args.ranks
        print_wall_clock(wall_clock(kernel, ranks, env, args.runs), ranks, args.runs)
    return figures


def print_capture(library: tuple[int, Counts] | None,
                  captured: tuple[int, Counts] | None) -> None:
    if library and captured:
        added = (captured[1].own - library[1].own) / 1e6
        print(f"  capture adds {100 * (captured[1].total / library[1].total - 1):.2f} % "
              f"instructions to the library without capture ({added:.2f} M of the "
              f"library's own work)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="wall-clock runs per side")
    parser.add_argument("--ranks", type=int, default=2, help="ranks of the wall-clock runs")
    parser.add_argument("--steps", type=int, default=100, help="vorpal-io time steps")
    parser.add_argument("--block", default="16x16x16", help="vorpal-io block per rank")
    parser.add_argument("--writes", type=int, default=2000, help="replay writes per rank")
    parser.add_argument("--files", type=int, default=10, help="file sessions of file_sessions")
    parser.add_argument("--session-ranks", type=int, default=2,
                        help="ranks of the file-session cases' wall-clock and collective runs")
    parser.add_argument("--ior-like-segments", type=int, default=4,
                        help="segments of the IOR-like cases (1 MiB a rank each)")
    parser.add_argument("--ior", type=Path, metavar="PATH",
                        help="stock IOR's binary: measure it too (case ior)")
    parser.add_argument("--ior-args", default=IOR_ARGS,
                        help=f"IOR's options but -o (default: {IOR_ARGS!r})")
    parser.add_argument("--library", type=Path,
                        help="the interposer library to measure instead of this build's (an "
                             "older build's, say, to see what a change did)")
    parser.add_argument("--config", type=Path,
                        help="tuning config to load instead of the built-in neutral one")
    parser.add_argument("--cases", default=",".join(CASES),
                        help=f"comma-separated, of {', '.join(CASES)} (and ior, with --ior: "
                             "--cases ior measures stock IOR alone)")
    parser.add_argument("--no-wall", dest="wall", action="store_false")
    parser.add_argument("--no-instructions", dest="instructions", action="store_false")
    parser.add_argument("--instructions-cases",
                        help="comma-separated: count instructions of these cases only (callgrind "
                             "is most of the benchmark's time; default: every case)")
    parser.add_argument("--no-collectives", dest="collectives", action="store_false")
    parser.add_argument("--no-capture", dest="capture", action="store_false",
                        help="skip the variant with workload capture on")
    parser.add_argument("--no-report", dest="report", action="store_false",
                        help="collectives and wall clock without IOTWIN_REPORT, as `iotwin "
                        "apply` preloads the library (the instruction counts read the report)")
    args = parser.parse_args()
    if args.instructions and not shutil.which("valgrind"):
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    folder = Path(tempfile.mkdtemp(prefix="iotwin-overhead-"))
    try:
        config = config_in(folder, args.config)
        kernels = {"many-writes": lambda: many_writes(folder, args.writes),
                   "many-datasets": lambda: many_datasets(folder, args.steps, args.block),
                   "sessions-hdf5": lambda: file_sessions(folder, "hdf5", args.files,
                                                          args.session_ranks),
                   "sessions-mpiio": lambda: file_sessions(folder, "mpiio", args.files,
                                                           args.session_ranks),
                   "sessions-ior-mpiio": lambda: ior_like_sessions(
                       folder, "mpiio", args.files, args.ior_like_segments, args.session_ranks),
                   "sessions-ior-posix": lambda: ior_like_sessions(
                       folder, "posix", args.files, args.ior_like_segments, args.session_ranks),
                   "ior": lambda: stock_ior(folder, args.ior.resolve(), args.ior_args,
                                            args.session_ranks)}
        # `--cases ior` with --ior: stock IOR alone (dict: each case once, in order)
        cases = list(dict.fromkeys(args.cases.split(",") + (["ior"] if args.ior else [])))
        instruction_cases = (args.instructions_cases.split(",") if args.instructions_cases
                             else cases)
        if not set(instruction_cases) <= set(cases):
            raise SystemExit(f"--instructions-cases {args.instructions_cases}: not among the "
                             f"cases run ({', '.join(cases)})")
        rows = []
        for name in cases:
            if name not in kernels:
                raise SystemExit(f"unknown case {name!r}: expected one of {', '.join(CASES)}")
            if name == "ior" and not args.ior:
                raise SystemExit("case ior: give IOR's binary with --ior PATH")
            kernel = kernels[name]()
            count_instructions = args.instructions and name in instruction_cases
            library = measure(kernel, None, args, folder, count_instructions)
            configured = measure(kernel, config, args, folder, count_instructions)
            if library and configured:
                rows.append(Row(name, kernel, library[0], {"no config": library[1],
                                                           "config": configured[1]}))
            if args.capture:
                print_capture(library, measure(kernel, None, args, folder,
                                               count_instructions, capture=True))
        if rows:
            print_table(rows)
    finally:
        shutil.rmtree(folder)


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size,
#: callgrind's on one case (its counting is the same for every case, and 3 s of CPU a run),
#: every run on 1 rank (the same paths; MPICH's 2 ranks spin in their waits for as long as
#: a loaded machine keeps one off a core: 17 of the 20 CPU s besides callgrind at load 15)
SMOKE_ARGS = ["--runs", "1", "--writes", "20", "--files", "2", "--ranks", "1",
              "--session-ranks", "1", "--ior-like-segments", "1",
              "--cases", "many-writes,sessions-mpiio,sessions-ior-posix",
              "--instructions-cases", "many-writes"]

if __name__ == "__main__":
    main()
