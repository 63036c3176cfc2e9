"""ROMIO's romio_cb_write modes measured on this machine against iosim's prediction.

`romio_cb_write.c` (built here with MPICH's mpicc) writes RECORD-byte records to one shared file
with one MPI_File_write_at_all a record, 2 ranks, under automatic (ROMIO's default), enable and
disable: IOR's hard pattern (record i of rank r at (i * ranks + r) * RECORD) and contiguous
blocks (each rank its own block). The runs alternate mode by mode, pattern by pattern
(ABAB...), so a change of the machine's load falls on every mode alike. Each mode's median is
set beside the `local` model's time of the same calls (romio_cb_write.hpp), as a ratio to
`disable`; the model's column at `network.collective_step_s` (a quiet machine's step) and at
`network.oversubscribed_step_s` (a step that waits for a descheduled rank: a loaded machine).

Each run also gives the slowest rank's median call, beside the model's time a call: a
session far longer than its records times its median call is a few calls' long waits in a
collective for a rank the scheduler took off its core, which only a loaded machine has.

    .venv/bin/python bench/romio_cb_write.py [--records 500] [--record 47008] [--repeat 5]

2026-11-29 16:38-16:43 UTC, load average 16-17 from other jobs on the 2 cores, 500 records of
47,008 bytes, 5 alternating runs (session medians [range]; a call: median of the runs' slowest
rank's median call; model: the quiet step):

    pattern      mode       measured s [range]      x disable  a call us  model us  model x
    interleaved  automatic  2.956 [0.823-7.212]         37.33       55.7      44.9     1.07
    interleaved  enable     1.451 [0.798-5.783]         18.32       49.7     117.1     2.79
    interleaved  disable    0.079 [0.056-0.112]          1.00       22.9      41.9     1.00
    blocks       automatic  3.735 [0.420-8.476]         54.87       47.4      44.9     1.07
    blocks       enable     49.608 [45.303-52.638]     728.79    99711.7     120.6     2.88
    blocks       disable    0.068 [0.036-0.150]          1.00       18.4      41.9     1.00

On ior-hard's pattern `automatic`'s median call is 2.4x `disable`'s (56 against 23 us: its
two allgathers of the offsets, ad_write_coll.c, then the same independent write), near the
quiet model; its session is 37x, 5.9 ms a call on average: the mean is the tail of calls
that wait for the other rank's next time slice, a few milliseconds each, what the
`oversubscribed_step_s` column charges every step (162x, above the range). `disable` never
waits for the other rank. So the 16-37x measured is the machine's load, not ROMIO's work; the
calls' medians (2.4x, taken under the same load) against the quiet model's 1.07x leave a
quiet machine's session ratio between the two, not measured here.

At 16:49, load average 26, 100 records on ior-hard's pattern, one run each: median calls
`disable` 27 us, `automatic` 16.0 ms, `enable` 51.9 ms; `blocks` under `enable` 64-159 ms a call
at 25-200 records (not growing with the file's span: the 100 ms a call of the table above is the
load too). A step of 5-8 ms and `enable`'s 3.2x `automatic`'s per call are what the model gives
with `oversubscribed_step_s` (5 ms; 2 steps a call against `enable`'s 7). iosim has the
mechanism, but takes it only where a node runs more ranks than cores; the other jobs' load,
which oversubscribes these 2 cores, is not an input of the model.

Contiguous blocks under `enable`: ROMIO's one aggregator here rereads and rewrites the whole
stretch between the ranks' records every call (a pread and a pwrite of 16 MiB, then of the
remaining 6.8 MB: ad_write_coll.c's rounds, sim-models/src/mpiio/romio_rounds.hpp). At
19:39-19:44 UTC, load average 30-38, 500 records, 3 alternating runs (a call, measured us /
model us): interleaved automatic 45.2 / 44.9, enable 46.7 / 117.1, disable 16.5 / 41.9;
blocks automatic 36.6 / 44.9, enable 159,958 / 11,893 (6.6 ms on the quiet machine, 8 ms of
kernel CPU a call: `/usr/bin/time` of 500 calls, 3.9-4.1 s system time), disable 15.3 / 41.9.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from iotwin.executors import launch
from iotwin.model.platforms import Platform, load_platform, parse_platform
from iotwin.model.sim import simulate

MODES = ("automatic", "enable", "disable")
PATTERNS = ("interleaved", "blocks")
RANKS = 2
SOURCE = Path(__file__).with_name("romio_cb_write.c")
#: the suite's run of it (tests/bench/test_bench_scripts.py): every mode and pattern, briefly
SMOKE_ARGS = ["--records", "4", "--repeat", "1"]


def build(into: Path) -> Path:
    program = into / "romio_cb_write"
    subprocess.run(["mpicc.mpich", "-O2", "-Wall", "-Wextra", "-o", str(program), str(SOURCE)],
                   check=True)
    return program


def measure(program: Path, folder: Path, mode: str, pattern: str, record: int,
            records: int) -> tuple[float, float]:
    """One session: its seconds and the slowest rank's median seconds a call."""
    target = folder / "shared.dat"
    done = launch.run_mpi(RANKS, [program, target, mode, pattern, str(record), str(records)],
                          timeout=600)
    target.unlink(missing_ok=True)
    if done.returncode != 0:
        raise SystemExit(f"romio_cb_write {mode} {pattern} failed:\n{done.stderr.strip()}")
    session, call = done.stdout.strip().splitlines()[-1].split()
    return float(session), float(call)


def workload(pattern: str, record: int, records: int) -> dict[str, Any]:
    """The program's calls as capture describes them: one call a record, repeated."""
    if pattern == "interleaved":
        dims, selection, step = [RANKS * records * record], {"grid": [RANKS], "block": [record]}, \
            [RANKS * record]
    else:  # rank r's row of the file: its block
        dims, selection, step = [RANKS, records * record], {"grid": [RANKS, 1],
                                                            "block": [1, record]}, [0, record]
    return {"iotwin_workload": 1, "name": f"romio-cb-write-{pattern}", "ranks": RANKS,
            "ranks_per_node": RANKS, "files": [{
                "name": "shared.dat", "mode": "shared", "api": "mpiio", "create": True,
                "datasets": [{"name": "bytes@0", "element_bytes": 1, "dims": dims,
                              "chunk_dims": None}],
                "calls": [{"write": ["bytes@0"], "transfer": "collective",
                           "selections": [selection],
                           "repeat": {"times": records, "origin_step": step}}]}]}


def with_step(platform: Platform, step_s: float) -> Platform:
    tree = copy.deepcopy(platform.tree)
    tree["network"]["collective_step_s"] = {"value": step_s, "assumption": "bench"}
    return parse_platform(tree, platform.name)


def predicted(platform: Platform, pattern: str, record: int, records: int) -> dict[str, float]:
    configs = [{"mpiio": {"romio_cb_write": mode}} for mode in MODES]
    results = simulate(platform, workload(pattern, record, records), configs)
    for result in results:
        if not result.ok:
            raise SystemExit(f"iosim: {result.error}")
    return {mode: result.time_s for mode, result in zip(MODES, results, strict=True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=500, help="records a rank writes")
    parser.add_argument("--record", type=int, default=47008, help="bytes a record")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each mode and pattern")
    args = parser.parse_args()
    local = load_platform("local")
    quiet_step = local.data["network"]["collective_step_s"]
    loaded_step = local.data["network"]["oversubscribed_step_s"]
    with tempfile.TemporaryDirectory(prefix="romio-cb-write-") as scratch:
        folder = Path(scratch)
        program = build(folder)
        seconds: dict[tuple[str, str], list[float]] = {}
        per_call: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for pattern in PATTERNS:
                for mode in MODES:
                    took, call = measure(program, folder, mode, pattern, args.record,
                                         args.records)
                    seconds.setdefault((pattern, mode), []).append(took)
                    per_call.setdefault((pattern, mode), []).append(call)
    print(f"{RANKS} ranks, {args.records} records of {args.record} bytes a rank, one "
          f"MPI_File_write_at_all a record; medians of {args.repeat} alternating runs")
    print("a call: the median over runs of the slowest rank's median call; model: the quiet "
          "step's time over the records")
    print(f"{'pattern':<12} {'mode':<10} {'measured s [range]':>24} {'x disable':>10} "
          f"{'a call us':>10} {'model us':>9} "
          f"{'model x (quiet step)':>21} {'model x (loaded step)':>22}")
    for pattern in PATTERNS:
        quiet = predicted(with_step(local, quiet_step), pattern, args.record, args.records)
        loaded = predicted(with_step(local, loaded_step), pattern, args.record, args.records)
        base = statistics.median(seconds[(pattern, "disable")])
        for mode in MODES:
            runs = seconds[(pattern, mode)]
            median = statistics.median(runs)
            call_us = statistics.median(per_call[(pattern, mode)]) * 1e6
            print(f"{pattern:<12} {mode:<10} {median:>9.3f} [{min(runs):.3f}-{max(runs):.3f}] "
                  f"{median / base:>10.2f} {call_us:>10.1f} "
                  f"{quiet[mode] / args.records * 1e6:>9.1f} "
                  f"{quiet[mode] / quiet['disable']:>21.2f} "
                  f"{loaded[mode] / loaded['disable']:>22.2f}")

if __name__ == "__main__":
    main()
