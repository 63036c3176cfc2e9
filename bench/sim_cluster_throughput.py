"""Screening on Dask against the single-process path, on this machine. Prints figures; asserts
nothing (timings are noisy: run it on an idle machine, nothing else building or measuring).

1. configs/s of hopper vpic-io at 2048 ranks: one `iosim --jobs 2` process vs a 2-worker
   dask.distributed LocalCluster (already started: its start-up is printed apart);
2. Dask's overhead at small batches (1 to 16 configs): wall time of both paths;
3. a bluewaters 298,048-rank what-if of 16 configs (`iotwin whatif --tune`, 32 ranks per node)
   on the LocalCluster and in one process, with the answer each gives.

    IOTWIN_BUILD=build .venv/bin/python bench/sim_cluster_throughput.py [--configs 64]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from failures import simulate_all
from iotwin.model import sim_cluster
from iotwin.model.platforms import load_platform
from iotwin.workloads.workload import dump_workload
from sim_throughput import random_configs, vpic_workload

CLUSTER = "local:2"


def timed(call: Callable[[], object], repeat: int = 1) -> float:
    """Median wall time of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def on_cluster(enabled: bool) -> None:
    if enabled:
        os.environ[sim_cluster.ENV] = CLUSTER
    else:
        os.environ.pop(sim_cluster.ENV, None)


def throughput(configs: int) -> None:
    hopper, workload = load_platform("hopper"), vpic_workload(2048, 8 * 2**20)
    batch = random_configs(configs)
    on_cluster(False)
    single = timed(lambda: simulate_all("one process", hopper, workload, batch, jobs=2))
    on_cluster(True)
    start = time.perf_counter()
    sim_cluster.client(CLUSTER)
    print(f"LocalCluster of 2 workers started in {time.perf_counter() - start:.1f} s")
    spread = timed(lambda: simulate_all("the cluster", hopper, workload, batch))
    print(f"hopper vpic-io 2048 ranks, {configs} configs: single process (iosim --jobs 2) "
          f"{configs / single:.1f} configs/s ({single:.1f} s); LocalCluster 2 workers "
          f"{configs / spread:.1f} configs/s ({spread:.1f} s); ratio {single / spread:.2f}")


def small_batches(sizes: list[int]) -> None:
    hopper, workload = load_platform("hopper"), vpic_workload(128, 8 * 2**20)
    print("Dask overhead at small batches (hopper vpic-io 128 ranks, median of 5):")
    for size in sizes:
        batch = random_configs(size, seed=size)
        on_cluster(False)
        single = timed(lambda b=batch: simulate_all("one process", hopper, workload, b, jobs=2),
                       repeat=5)
        on_cluster(True)
        spread = timed(lambda b=batch: simulate_all("the cluster", hopper, workload, b), repeat=5)
        print(f"  {size:3d} configs: single {1000 * single:7.1f} ms, cluster "
              f"{1000 * spread:7.1f} ms, overhead {1000 * (spread - single):+7.1f} ms")


def bluewaters_whatif() -> None:
    with tempfile.TemporaryDirectory() as work:
        workload = Path(work) / "vpic-bluewaters.yaml"
        workload.write_text(dump_workload(vpic_workload(298_048, 32 * 2**20, 32)))
        argv = [sys.executable, "-m", "iotwin", "whatif", "--workload", str(workload),
                "--platforms", "bluewaters", "--tune", "--strategy", "random", "--budget", "16",
                "--json"]
        for where, extra in (("the LocalCluster", ["--sim-cluster", CLUSTER]),
                             ("one process", [])):
            on_cluster(False)
            start = time.perf_counter()
            done = subprocess.run([*argv, *extra], capture_output=True, text=True, check=False)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"bluewaters what-if on {where} failed: {done.stderr.strip()}")
            [answer] = json.loads(done.stdout)
            print(f"bluewaters vpic-io 298,048 ranks, what-if of 16 configs + the default on "
                  f"{where}: {wall:.0f} s wall (start-up included); default "
                  f"{answer['default_mbs']:.0f} MB/s, tuned {answer['tuned_mbs']:.0f} MB/s "
                  f"({answer['tuned_settings']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=64)
    parser.add_argument("--batch-sizes", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2, 4, 16], help="the small batches of part 2")
    parser.add_argument("--skip-bluewaters", action="store_true")
    args = parser.parse_args()
    throughput(args.configs)
    small_batches(args.batch_sizes)
    if not args.skip_bluewaters:
        bluewaters_whatif()


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--configs", "2", "--batch-sizes", "1", "--skip-bluewaters"]

if __name__ == "__main__":
    main()
