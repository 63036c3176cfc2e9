"""Overhead of libiotwin_h5.so on a kernel that makes many small writes.

vorpal-io with many time steps and small blocks creates and writes hundreds of small datasets
per rank, which is where per-call costs of the interposer (hooks, timing, read-back at
H5Dclose, the report at H5Fclose) show. The kernel runs with --no-sync: the library adds CPU
time per call, and device flushes would only add noise to that comparison. Runs alternate
with and without the library so that drift on this shared machine hits both sides; prints the
medians of the kernel's own open -> close time and their ratio (target: below 1.02).

    .venv/bin/python bench/interposer_overhead.py [--runs 7] [--ranks 2] [--steps 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from iotwin import launch, paths


def one_run(ranks: int, argv: list[str], env: dict[str, str]) -> float:
    done = launch.run_mpi(ranks, argv, env=env, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"run failed: {done.stderr.strip()}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["total_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per side (>= 5)")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100, help="vorpal-io time steps")
    parser.add_argument("--block", default="16x16x16", help="vorpal-io block per rank")
    parser.add_argument("--config", type=Path, help="tuning config to load (default: none)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="iotwin-overhead-"))
    argv = [str(paths.kernel_binary("vorpal-io")), "--file", str(folder / "v.h5"),
            "--steps", str(args.steps), "--block", args.block, "--no-sync"]
    with_library = {"LD_PRELOAD": str(paths.interposer_library()),
                    "IOTWIN_REPORT": str(folder / "report.jsonl")}
    if args.config:
        with_library["IOTWIN_CONFIG"] = str(args.config.resolve())
    times: dict[str, list[float]] = {"without": [], "with": []}
    one_run(args.ranks, argv, {})   # warm-up: page cache, first-touch of the binaries
    for _ in range(args.runs):
        times["without"].append(one_run(args.ranks, argv, {}))
        times["with"].append(one_run(args.ranks, argv, with_library))
    writes = json.loads((folder / "report.jsonl").read_text().splitlines()[-1])["writes"]
    medians = {side: statistics.median(values) for side, values in times.items()}
    print(f"vorpal-io x{args.ranks}, {args.steps} steps of {args.block}: {writes} H5Dwrite "
          f"calls per run, {args.runs} runs per side")
    for side, values in times.items():
        print(f"  {side:8s} library: median {medians[side]:.4f} s  "
              f"(min {min(values):.4f}, max {max(values):.4f})")
    print(f"  ratio with/without: medians {medians['with'] / medians['without']:.4f}, "
          f"minima {min(times['with']) / min(times['without']):.4f}")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
