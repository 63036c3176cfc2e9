"""Simulator throughput: configs per second for vpic-io on hopper (128, 2048, 4096 ranks) and
the wall time of one 298,048-rank vpic-io run on bluewaters. Prints figures; stops on any
failed configuration.

    IOTWIN_BUILD=build .venv/bin/python bench/sim_throughput.py [--configs 40] [--skip-bluewaters]
"""

from __future__ import annotations

import argparse
import random
import resource
import time
from typing import Any

from failures import simulate_all
from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.model import iosim_process
from iotwin.model.platforms import load_platform

VARIABLES = ("x", "y", "z", "id1", "id2", "px", "py", "pz")


def vpic_workload(ranks: int, particles: int, ranks_per_node: int | None = None) -> dict[str, Any]:
    """vpic-io as the kernel describes it: 8 one-dimensional variables of 4-byte elements."""
    wl: dict[str, Any] = {
        "iotwin_workload": 1, "name": "vpic-io", "ranks": ranks,
        "files": [{"name": "vpic-io.h5", "datasets": [
            {"name": f"/Step#0/{v}", "element_bytes": 4,
             "decomposition": {"grid": [ranks], "block": [particles]}} for v in VARIABLES]}],
    }
    if ranks_per_node:
        wl["ranks_per_node"] = ranks_per_node
    return wl


def random_configs(n: int, seed: int = 0) -> list[Config]:
    """Configs as a user writes them, made typed (sizes as byte counts) the one way there is."""
    rng = random.Random(seed)
    return [validate_config({"lustre": {"stripe_count": rng.choice([2, 8, 16, 32, 48, 64, 96, 156]),
                        "stripe_size": rng.choice(["1MiB", "4MiB", "16MiB", "32MiB"])},
             "mpiio": {"cb_nodes": rng.choice([8, 24, 48, 96]),
                       "cb_buffer_size": rng.choice(["4MiB", "16MiB", "64MiB"]),
                       "romio_cb_write": rng.choice(["enable", "disable"])},
             "hdf5": {"alignment": {"threshold": 0,
                                    "boundary": rng.choice(["4KiB", "64KiB", "1MiB"])}}},
                            "bench/sim_throughput.py")
            for _ in range(n)]


def child_cpu_s() -> float:
    iosim_process.close_servers()  # what the batch's iosim used counts once it has ended
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--configs", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-bluewaters", action="store_true")
    args = parser.parse_args()
    hopper = load_platform("hopper")
    configs = random_configs(args.configs)
    for ranks in (128, 2048, 4096):
        start, cpu = time.perf_counter(), child_cpu_s()
        results = simulate_all(f"hopper vpic-io {ranks} ranks", hopper,
                               vpic_workload(ranks, 8 * 2**20), configs, jobs=args.jobs)
        wall, cpu = time.perf_counter() - start, child_cpu_s() - cpu
        phases = sum(r.breakdown.get("distinct_phases_simulated", 0) for r in results)
        # CPU time says what the 2 cores could do when the machine is not shared.
        print(f"hopper vpic-io {ranks:5d} ranks: {len(configs) / wall:6.1f} configs/s wall, "
              f"{args.jobs * len(configs) / cpu:6.1f} configs/s on {args.jobs} idle cores "
              f"({len(configs)} configs: {wall:.2f} s wall, {cpu:.2f} s CPU, "
              f"{phases} distinct phases)")
    if not args.skip_bluewaters:
        bluewaters = load_platform("bluewaters")
        for name, config in (("site defaults", {}),
                             ("160 stripes", {"lustre": {"stripe_count": 160}})):
            start, cpu = time.perf_counter(), child_cpu_s()
            [r] = simulate_all(f"bluewaters vpic-io, {name}", bluewaters,
                               vpic_workload(298_048, 32 * 2**20, 32), [config], jobs=1)
            wall, cpu = time.perf_counter() - start, child_cpu_s() - cpu
            print(f"bluewaters vpic-io 298048 ranks, {name}: {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU ({r.rate_mbs:.0f} MB/s predicted)")


#: the suite's run of it (tests/bench/test_bench_scripts.py): every path at the smallest size
SMOKE_ARGS = ["--configs", "2", "--skip-bluewaters"]

if __name__ == "__main__":
    main()
