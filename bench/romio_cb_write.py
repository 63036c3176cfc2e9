"""ROMIO's romio_cb_write modes measured on this machine against iosim's prediction.

`romio_cb_write.c` (built here with MPICH's mpicc) writes RECORD-byte records to one shared file
with one MPI_File_write_at_all a record, 2 ranks, under automatic (ROMIO's default), enable and
disable: IOR's hard pattern (record i of rank r at (i * ranks + r) * RECORD) and contiguous
blocks (each rank its own block). The runs alternate mode by mode, pattern by pattern
(ABAB...), so a change of the machine's load falls on every mode alike. Each mode's median is
set beside the `local` model's time of the same calls (romio_cb_write.hpp), as a ratio to
`disable`; the model's column at `network.collective_step_s` (a quiet machine's step) and at
`network.oversubscribed_step_s` (a step that waits for a descheduled rank: a loaded machine).

    .venv/bin/python bench/romio_cb_write.py [--records 500] [--record 47008] [--repeat 5]
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
            records: int) -> float:
    target = folder / "shared.dat"
    done = launch.run_mpi(RANKS, [program, target, mode, pattern, str(record), str(records)],
                          timeout=600)
    target.unlink(missing_ok=True)
    if done.returncode != 0:
        raise SystemExit(f"romio_cb_write {mode} {pattern} failed:\n{done.stderr.strip()}")
    return float(done.stdout.strip().splitlines()[-1])


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
        for _ in range(args.repeat):
            for pattern in PATTERNS:
                for mode in MODES:
                    took = measure(program, folder, mode, pattern, args.record, args.records)
                    seconds.setdefault((pattern, mode), []).append(took)
    print(f"{RANKS} ranks, {args.records} records of {args.record} bytes a rank, one "
          f"MPI_File_write_at_all a record; medians of {args.repeat} alternating runs")
    print(f"{'pattern':<12} {'mode':<10} {'measured s [range]':>24} {'x disable':>10} "
          f"{'model x (quiet step)':>21} {'model x (loaded step)':>22}")
    for pattern in PATTERNS:
        quiet = predicted(with_step(local, quiet_step), pattern, args.record, args.records)
        loaded = predicted(with_step(local, loaded_step), pattern, args.record, args.records)
        base = statistics.median(seconds[(pattern, "disable")])
        for mode in MODES:
            runs = seconds[(pattern, mode)]
            median = statistics.median(runs)
            print(f"{pattern:<12} {mode:<10} {median:>9.3f} [{min(runs):.3f}-{max(runs):.3f}] "
                  f"{median / base:>10.2f} {quiet[mode] / quiet['disable']:>21.2f} "
                  f"{loaded[mode] / loaded['disable']:>22.2f}")

if __name__ == "__main__":
    main()
