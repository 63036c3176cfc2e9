"""block3d-io through MPI-IO, HDF5 and netCDF-4 on this machine, with iosim's prediction beside
each: what the issue-35 comparison of the three libraries measures locally. Needs a quiet
machine: the figures compare runs with each other.

    .venv/bin/python bench/block3d_methods.py [--ranks 4] [--block 128] [--halo 2] [--runs 5]
        [--platform local]

Every (method, MPI flavour) pair runs ``--runs`` times, interleaved round-robin so that drift in
the machine's load hits every pair alike, sync on, without the interposer (no config is
applied; bare MPI-IO has nothing for it to hook), in the executor's scratch directory on the
real disk. netCDF-4 exists only on Open MPI (Debian's libnetcdf-mpi-dev), so MPI-IO and HDF5 run
under both flavours: MPI-IO and HDF5 under Open MPI against netCDF-4 is the library's own cost,
MPICH against Open MPI is ROMIO's against OMPIO's. Prints per pair the median total and each
phase's median, the rate, the spread, and the rate iosim predicts for the pair's described
workload (that flavour's build, its `mpi`) on ``--platform``.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass

from iotwin.core.stats import Summary, summarize
from iotwin.executors.base import Target
from iotwin.executors.local import LocalExecutor
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import kernel_workload

KERNEL = "block3d-io"
PAIRS = [("mpiio", "mpich"), ("hdf5", "mpich"), ("mpiio", "openmpi"), ("hdf5", "openmpi"),
         ("netcdf4", "openmpi")]
PHASES = ("open_s", "write_s", "sync_s", "close_s")


@dataclass
class Measured:
    rate: Summary
    phases: dict[str, float]  # median of each phase


def kernel_args(args: argparse.Namespace, method: str) -> tuple[str, ...]:
    return ("--block", str(args.block), "--halo", str(args.halo), "--method", method, "--sync")


def measure(args: argparse.Namespace) -> dict[tuple[str, str], Measured]:
    executors = {name: LocalExecutor(preload=False, env={"IOTWIN_MPI": name})
                 for name in {flavour for _, flavour in PAIRS}}
    rates: dict[tuple[str, str], list[float]] = {pair: [] for pair in PAIRS}
    phases: dict[tuple[str, str], list[dict[str, float]]] = {pair: [] for pair in PAIRS}
    for repetition in range(args.runs):
        for method, flavour in PAIRS:
            target = Target(args.ranks, kernel=KERNEL, args=kernel_args(args, method))
            result = executors[flavour].run_once(target, {}, seed=repetition)
            if not result.ok or result.rate_mbs is None:
                raise SystemExit(f"{method} on {flavour}: {result.status}: {result.error}")
            rates[(method, flavour)].append(result.rate_mbs)
            phases[(method, flavour)].append(result.phases)
            print(f"  run {repetition + 1}/{args.runs}  {method:<8} {flavour:<8} "
                  f"{result.rate_mbs:9.1f} MB/s", flush=True)
    return {pair: Measured(summarize(rates[pair]),
                           {p: statistics.median(run[p] for run in phases[pair]) for p in PHASES})
            for pair in PAIRS}


def predicted_mbs(args: argparse.Namespace, method: str, flavour: str) -> float | None:
    workload = kernel_workload(KERNEL, args.ranks, list(kernel_args(args, method)), flavour)
    [result] = simulate(load_platform(args.platform), workload, [{}], jobs=1)
    return result.rate_mbs if result.ok else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--block", type=int, default=128, help="N: NxNxN doubles per rank")
    parser.add_argument("--halo", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default="local")
    args = parser.parse_args()
    mib = args.ranks * args.block**3 * 8 / 2**20
    print(f"{KERNEL}, {args.ranks} ranks x {args.block}^3 doubles ({mib:.0f} MiB per run), "
          f"halo {args.halo}, sync on, {args.runs} runs per pair")
    measured = measure(args)
    print(f"\n{'method':<8} {'MPI':<8} {'median MB/s':>11} {'spread':>7} "
          + " ".join(f"{p:>8}" for p in PHASES) + f" {'iosim MB/s':>10}")
    for (method, flavour), m in measured.items():
        predicted = predicted_mbs(args, method, flavour)
        shown = f"{predicted:10.1f}" if predicted is not None else f"{'failed':>10}"
        print(f"{method:<8} {flavour:<8} {m.rate.median:11.1f} {100 * m.rate.spread:6.1f}% "
              + " ".join(f"{m.phases[p]:8.3f}" for p in PHASES) + f" {shown}")


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--ranks", "2", "--block", "16", "--runs", "1"]

if __name__ == "__main__":
    main()
