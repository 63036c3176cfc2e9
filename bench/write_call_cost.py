"""What one small write call costs on this machine, through HDF5, ROMIO and the page cache.

block3d-io writes a rank's 3-D block independently as one H5Dwrite; HDF5 hands ROMIO each
contiguous row of it (X doubles) as a write call of its own, and no flush follows
(`--no-sync`). The same bytes a rank (16 MiB) in rows of 256 B to 16 KiB make 1,024 to 65,536
calls; the write time against the calls is a line whose slope is a call's cost and whose
intercept is the copy of the bytes:

    for each repetition, the shapes in a rotated order:
        write_s[shape] <- block3d-io --block XxYxZ --independent --no-sync (2 ranks), after
                          a warm-up of the page cache (the landscape tables' 512 MiB)
    slope, intercept <- least squares of the shapes' median write_s on their calls per rank

Prints each shape's median, the fit, and the leaf of the local platform model's
`lustre_client.write_call_s` (sim-models/platforms/local.yaml). Run it on a quiet machine.

    .venv/bin/python bench/write_call_cost.py [--repeat 7] [--ranks 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import block3d_runs
import numpy as np
from iotwin.executors.local import default_scratch_root

ELEMENTS = 128 ** 3   # doubles a rank: 16 MiB
SHAPES = [(32, 256, 256), (128, 128, 128), (512, 64, 64), (2048, 32, 32)]   # X x Y x Z


def write_seconds(shape: tuple[int, int, int], ranks: int, folder: Path) -> float:
    return block3d_runs.write_seconds(["--block", "x".join(map(str, shape)), "--independent",
                                       "--no-sync"], ranks, folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--ranks", type=int, default=2)
    args = parser.parse_args()
    times: dict[tuple[int, int, int], list[float]] = {shape: [] for shape in SHAPES}
    with tempfile.TemporaryDirectory(prefix="iotwin-calls-", dir=default_scratch_root()) as d:
        for repetition in range(args.repeat):
            for shape in block3d_runs.rotated(SHAPES, repetition):
                times[shape].append(write_seconds(shape, args.ranks, Path(d)))
    calls = np.array([shape[1] * shape[2] for shape in SHAPES], dtype=float)
    medians = np.array([statistics.median(times[shape]) for shape in SHAPES])
    slope, intercept = np.polyfit(calls, medians, 1)
    for shape, n, median in zip(SHAPES, calls, medians, strict=True):
        spread = (max(times[shape]) - min(times[shape])) / median
        print(f"block {'x'.join(map(str, shape))}: {int(n):6d} calls of {shape[0] * 8} B a "
              f"rank, write {1e3 * median:7.2f} ms (median of {args.repeat}, spread "
              f"{100 * spread:.0f}%)")
    copy_mbs = ELEMENTS * 8 / intercept / 1e6 if intercept > 0 else float("nan")
    print(f"fit: {1e6 * slope:.2f} us a call + {1e3 * intercept:.2f} ms for 16 MiB a rank "
          f"({copy_mbs:.0f} MB/s)")
    print(f"  write_call_s: {{value: {slope:.2e}, bounds: [0.0, 2.0e-5], source: \"measured: "
          f"bench/write_call_cost.py, {args.ranks} ranks, block3d-io --independent --no-sync "
          f"at 1,024-65,536 calls of the same 16 MiB a rank, slope of the median write time\"}}")


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--repeat", "1"]

if __name__ == "__main__":
    main()
