"""What a large collective buffer costs on this machine: two-phase writes through ROMIO with
one aggregator and buffers of 1 to 32 MiB.

ROMIO allocates the collective buffer (cb_buffer_size) when a file is opened and fills it
round after round; the bytes a run moves are the same whatever the buffer's size, only the
rounds change (fewer, each larger), and a round's step is microseconds here
(bench/collective_step.py). On this machine the write time still grows with the buffer, by
about its size over a first-touch rate beyond the first few MiB: the pages of a buffer cost
the kernel, and on this virtual machine the hypervisor, when first written (iosim's
`network.first_touch_mbs` and `network.first_touch_warm_bytes`,
sim-models/src/mpiio/first_touch.hpp).
This measures both on block3d-io shapes that are not the measured tables', and sets the
model's extra (the local platform as committed) beside each, on those shapes and on one the
fit does not use (the tables' 128^3 block written through bare MPI-IO):

    for each repetition, the buffer sizes in a rotated order, for each case:
        write_s[case, size] <- block3d-io --block CASE --no-sync (collective, 2 ranks),
                                ROMIO_HINTS: romio_cb_write enable, cb_config_list *:1,
                                cb_buffer_size SIZE; after a warm-up of the page cache
    extra[case, size] <- median write_s[case, size] - median write_s[case, 1 MiB]
    cold(size) <- max(0, size - warm_bytes) - max(0, 1 MiB - warm_bytes)
    warm_bytes, rate <- least squares of extra = cold(size) / rate over the two fit
                        cases, warm_bytes among the sizes (every size fills its buffer: the
                        aggregator's 62-64 MiB domain exceeds the largest)

Prints each case's medians and extras, the model's, and the two leaves of the local platform model
(sim-models/platforms/local.yaml). Run it on a quiet machine.

    .venv/bin/python bench/collective_buffer_size.py [--repeat 5] [--ranks 2] [--sizes 1,2,4,...]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import block3d_runs
import numpy as np
from iotwin.executors.local import default_scratch_root
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import kernel_workload

MiB = 1 << 20
# block3d-io arguments: two HDF5 shapes the fit uses (31 and 32 MiB a rank), and the bare
# MPI-IO method of the tables' 128^3 block, which it does not (the model's check)
FIT_CASES = [("160x160x160",), ("512x64x128",)]
CHECK_CASES = [("128", "--method", "mpiio")]
SIZES = [1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB]


Case = tuple[str, ...]


def case_args(case: Case) -> list[str]:
    return ["--block", *case, "--no-sync"]


def buffered(size: int) -> dict[str, dict[str, object]]:
    return {"mpiio": {"romio_cb_write": "enable", "cb_config_list": "*:1",
                      "cb_buffer_size": size}}


def write_seconds(case: Case, size: int, ranks: int, folder: Path) -> float:
    hints = folder / f"hints-{size}"
    hints.write_text(f"romio_cb_write enable\ncb_config_list *:1\ncb_buffer_size {size}\n")
    return block3d_runs.write_seconds(case_args(case), ranks, folder,
                                      env={"ROMIO_HINTS": str(hints)})


def model_write_seconds(case: Case, ranks: int, sizes: list[int]) -> list[float]:
    """The local platform model's write time of the case at each buffer size."""
    workload = kernel_workload("block3d-io", ranks, case_args(case))
    results = simulate(load_platform("local"), workload, [buffered(size) for size in sizes])
    return [r.phases["write"] for r in results]


def print_case(case: Case, times: dict[tuple[Case, int], list[float]], ranks: int,
               repeat: int, sizes: list[int]) -> list[float]:
    """Prints the case's medians, extras and the model's; returns the measured extras."""
    base = statistics.median(times[(case, sizes[0])])
    model = model_write_seconds(case, ranks, sizes)
    print(f"block3d-io --block {' '.join(case)} ({ranks} ranks, one aggregator):")
    extras = []
    for size, predicted in zip(sizes, model, strict=True):
        median = statistics.median(times[(case, size)])
        extras.append(median - base)
        print(f"  cb_buffer_size {size // MiB:3d} MiB: write {1e3 * median:7.2f} ms (median of "
              f"{repeat}), extra {1e3 * (median - base):6.2f} ms; the model's extra "
              f"{1e3 * (predicted - model[0]):6.2f} ms")
    return extras


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--sizes", type=mib_list, default=SIZES,
                        help="buffer sizes in MiB, comma-separated, the first the baseline "
                             "(default 1,2,4,8,16,32)")
    args = parser.parse_args()
    sizes: list[int] = args.sizes
    times: dict[tuple[Case, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="iotwin-buffers-", dir=default_scratch_root()) as d:
        for repetition in range(args.repeat):
            for size in block3d_runs.rotated(sizes, repetition):
                for case in FIT_CASES + CHECK_CASES:
                    times.setdefault((case, size), []).append(
                        write_seconds(case, size, args.ranks, Path(d)))
    extras: dict[int, list[float]] = {size: [] for size in sizes}   # seconds, per fit case
    for case in FIT_CASES:
        for size, extra in zip(sizes, print_case(case, times, args.ranks, args.repeat, sizes),
                               strict=True):
            extras[size].append(extra)
    print("not fitted, the model's check:")
    for case in CHECK_CASES:
        print_case(case, times, args.ranks, args.repeat, sizes)
    fit = hinge_fit(extras)
    if fit is None:
        print("fit: larger buffers were not slower here: no first-touch cost to fit")
        return
    warm_bytes, rate = fit
    print(f"fit: a buffer's bytes beyond its first {warm_bytes // MiB} MiB cost "
          f"{rate / 1e6:.0f} MB/s (least squares over the fit cases)")
    print(f"  first_touch_mbs: {{value: {rate / 1e6:.0f}, bounds: [50, 20000], source: \"measured: "
          f"bench/collective_buffer_size.py\"}}")
    print(f"  first_touch_warm_bytes: {{value: {warm_bytes // MiB}MiB, source: \"measured: "
          f"bench/collective_buffer_size.py\"}}")


def mib_list(text: str) -> list[int]:
    """``1,2,4`` -> the sizes in bytes."""
    try:
        sizes = [int(word) * MiB for word in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected MiB counts, e.g. 1,2,4") from None
    if len(sizes) < 2 or any(size <= 0 for size in sizes):
        raise argparse.ArgumentTypeError(f"{text!r}: expected two or more positive MiB counts")
    return sizes


def hinge_fit(extras: dict[int, list[float]]) -> tuple[int, float] | None:
    """The warm bytes among the sizes and the rate (bytes a second) that fit the extra seconds
    best as max(0, size - warm) / rate; None when no size costs more than the smallest (the
    first of ``extras``, the baseline of every extra)."""
    sizes = list(extras)
    best: tuple[float, int, float] | None = None
    for warm in [0, *sizes[:-1]]:
        def cold_beyond_smallest(size: int, warm: int = warm) -> int:
            return max(0, size - warm) - max(0, sizes[0] - warm)
        cold = np.array([cold_beyond_smallest(size) for size in sizes for _ in extras[size]],
                        dtype=float)
        seconds = np.array([extra for size in sizes for extra in extras[size]])
        per_byte = float(cold @ seconds / (cold @ cold))
        residual = float(np.sum((seconds - per_byte * cold) ** 2))
        if per_byte > 0 and (best is None or residual < best[0]):
            best = (residual, warm, 1 / per_byte)
    return None if best is None else (best[1], best[2])

#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size,
#: on 1 rank (the same paths, without MPICH's ranks spinning while they wait)
SMOKE_ARGS = ["--repeat", "1", "--sizes", "1,2", "--ranks", "1"]

if __name__ == "__main__":
    main()
