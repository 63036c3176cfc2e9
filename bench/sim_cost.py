"""What a simulation of the 3-D block pattern costs iosim: wall time, CPU time and peak memory
of one simulation (the platform's site defaults) at 1,536 / 6,144 / 24,576 / 1,000,000 ranks,
128^3 and 256^3 doubles a rank, MPI-IO and HDF5 collective writes, on a Lustre platform; for
the closed form (now) and the old path that materialises every contiguous piece (the binary
built from the branch point given with --before, else this binary's options.walk_pieces);
where both answer, every number of the two answers compared (to 1e-9 relative). Then the
screening throughput: configs a second through iosim's batch mode for a population of
configs from the table3 space at 6,144 ranks. Prints figures; stops if the current binary fails.

The pattern is EPCC benchio's (each rank one block of n^3 doubles of a global 3-D array, the
process grid as MPI_Dims_create makes it, one collective write to one shared file), described
by the VORPAL-IO kernel with one component (its own process grid code). Peak memory is the
largest resident set of iosim and its workers (wait4's rusage, as /usr/bin/time -v reports it).

    IOTWIN_BUILD=build .venv/bin/python bench/sim_cost.py [--platform archer]
        [--before /path/to/iosim-at-a4321c0] [--old-memory 8G] [--ranks 1536,6144]
        [--blocks 128,256] [--apis mpiio,hdf5] [--screen-configs 100] [--screen-before 2]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Any

from failures import stop_on_failures
from iotwin.core import paths
from iotwin.core.units import parse_size
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import simulator_input
from iotwin.model.sim_answers import differences, largest_difference
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.workloads.workload import kernel_workload


def block3d(ranks: int, side: int, api: str) -> dict[str, Any]:
    workload = kernel_workload("vorpal-io", ranks, ["--block", f"{side}x{side}x{side}",
                                                    "--components", "1", "--no-sync"])
    [file] = workload["files"]
    file.update(name="block3d.dat" if api == "mpiio" else "block3d.h5", api=api,
                role="checkpoint")
    return {**workload, "name": f"block3d-{api}"}


@dataclass
class Run:
    seconds: float
    cpu_s: float
    peak_bytes: int
    results: list[dict[str, Any]]

    def first(self) -> dict[str, Any]:
        return self.results[0] if self.results else {"ok": False, "error": "no result"}


def run_iosim(binary: str, payload: dict[str, Any], jobs: int, memory: int | None) -> Run:
    """One iosim process under /usr/bin/time: its wall time, CPU time and peak resident memory
    (of it and its workers, as wait4 reports it). `memory` caps its address space (the old
    binary has no limit of its own)."""
    def cap() -> None:
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        done = subprocess.run(["/usr/bin/time", "-o", timing.name, "-f", "%e %U %S %M",
                               binary, "--jobs", str(jobs), "-"], input=json.dumps(payload),
                              capture_output=True, text=True, preexec_fn=cap, check=False)
        fields = timing.read().split()[-4:]
    wall, user, system, peak_kib = (float(x) for x in fields)
    try:
        results = list(json.loads(done.stdout)["results"])
    except (json.JSONDecodeError, KeyError):
        results = [{"ok": False, "error": (done.stderr.strip().splitlines() or ["crashed"])[-1]}]
    return Run(wall, user + system, int(peak_kib) * 1024, results)


def errors(run: Run) -> list[str | None]:
    return [None if r.get("ok") else str(r.get("error", "no answer")) for r in run.results]


def cell(run: Run) -> str:
    result = run.first()
    if not result.get("ok"):
        reason = str(result.get("error", ""))
        short = "out of memory" if "memory" in reason else reason[:40]
        return f"{short} after {run.seconds:.1f} s, {run.peak_bytes / 2**20:.0f} MiB"
    return f"{run.seconds:.2f} s ({run.cpu_s:.2f} s CPU), {run.peak_bytes / 2**20:.0f} MiB"


def cost_table(args: argparse.Namespace, platform: Platform) -> None:
    new = str(paths.simulator_binary())
    before = args.before or new
    print(f"platform {platform.name}; old path: "
          f"{'the binary ' + args.before if args.before else 'options.walk_pieces'}")
    print("| ranks | block | api | pieces | now | old path | same answer (largest difference) |")
    print("|---:|---:|---|---:|---|---|---|")
    for ranks in args.ranks:
        for side in args.blocks:
            for api in args.apis:
                payload = simulator_input(platform, block3d(ranks, side, api), [{}])
                now = run_iosim(new, payload, 1, None)
                stop_on_failures(f"{ranks} ranks {side}^3 {api}", errors(now))
                old_payload = payload if args.before else {
                    **payload, "options": {**payload["options"], "walk_pieces": True}}
                old = run_iosim(before, old_payload, 1, args.old_memory)
                a, b = now.first(), old.first()
                if a.get("ok") and b.get("ok"):
                    diff = differences(a, b)
                    same = (f"yes ({largest_difference(a, b):.1e})" if not diff
                            else f"NO: {diff[:3]}")
                else:
                    same = "-"
                print(f"| {ranks:,} | {side}^3 | {api} | {ranks * side * side:,} | {cell(now)} | "
                      f"{cell(old)} | {same} |", flush=True)


def table3_configs(n: int, platform: Platform, ranks: int, seed: int = 0) -> list[dict[str, Any]]:
    fs = platform.data["filesystem"]
    context = SpaceContext(filesystem=fs["type"], ranks=ranks,
                           max_stripe_count=fs.get("max_stripe_count"))
    space = load_space("table3").bind(context)
    rng = random.Random(seed)
    return [space.config(space.repair(space.random_point(rng))[0]) for _ in range(n)]


def screening(args: argparse.Namespace, platform: Platform) -> None:
    ranks, side = 6144, args.screen_block
    configs = table3_configs(args.screen_configs, platform, ranks)
    for api in args.apis:
        workload = block3d(ranks, side, api)
        runs = [("now", str(paths.simulator_binary()), configs, {})]
        if args.screen_before > 0:
            walk = {} if args.before else {"walk_pieces": True}
            runs.append(("old path", args.before or str(paths.simulator_binary()),
                         configs[:args.screen_before], walk))
        for label, binary, population, options in runs:
            payload = simulator_input(platform, workload, population, options)
            run = run_iosim(binary, payload, args.jobs, args.old_memory if label != "now" else None)
            if label == "now":
                stop_on_failures(f"screening {api}", errors(run))
            ok = sum(1 for r in run.results if r.get("ok"))
            rate = len(population) / run.seconds
            print(f"screening {api} {ranks:,} ranks {side}^3, {label}: {len(population)} configs "
                  f"({ok} answered) in {run.seconds:.1f} s with {args.jobs} jobs = "
                  f"{rate:.2f} configs/s, peak {run.peak_bytes / 2**20:.0f} MiB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="archer")
    parser.add_argument("--before", help="iosim built from the branch point (the old path)")
    parser.add_argument("--old-memory", type=parse_size, default=parse_size("8GiB"),
                        help="address space the old path may take (it has no limit of its own)")
    parser.add_argument("--ranks", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1536, 6144, 24576, 1_000_000])
    parser.add_argument("--blocks", type=lambda s: [int(x) for x in s.split(",")],
                        default=[128, 256])
    parser.add_argument("--apis", type=lambda s: s.split(","), default=["mpiio", "hdf5"])
    parser.add_argument("--screen-configs", type=int, default=100)
    parser.add_argument("--screen-block", type=int, default=256)
    parser.add_argument("--screen-before", type=int, default=2,
                        help="configs the old path screens (it takes minutes each)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-table", action="store_true")
    parser.add_argument("--skip-screening", action="store_true")
    args = parser.parse_args()
    platform = load_platform(args.platform)
    if not args.skip_table:
        cost_table(args, platform)
    if not args.skip_screening:
        screening(args, platform)


#: the suite's run of it (tests/bench/test_bench_scripts.py): both paths at the smallest size
SMOKE_ARGS = ["--ranks", "1536", "--blocks", "16", "--apis", "mpiio", "--screen-configs", "2",
              "--screen-block", "16", "--screen-before", "1", "--jobs", "1"]

if __name__ == "__main__":
    main()
