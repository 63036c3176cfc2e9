"""Simulator cost of the paper's kernels at scale: wall time of one simulation (hopper, the
site's defaults) of each Table 4 workload at 2048 and 4096 ranks, as the experiments size them.
Prints figures; stops on a failed simulation.

    IOTWIN_BUILD=build .venv/bin/python bench/sim_kernels_at_scale.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

from failures import simulate_all
from iotwin.core.paths import repo_root
from iotwin.model.platforms import load_platform
from iotwin.studies.experiment.spec import load_experiment
from iotwin.workloads.workload import kernel_workload

SPEC = repo_root() / "experiments" / "table4-default-vs-tuned.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", default="hopper")
    parser.add_argument("--repeat", type=int, default=3,
                        help="simulations per workload (the best time is kept)")
    parser.add_argument("--workloads", type=lambda s: s.split(","),
                        help="labels of the experiment's workloads to run (default: every one)")
    args = parser.parse_args()
    platform = load_platform(args.platform)
    print(f"{'workload':10s} {'ranks':>6s} {'best s':>8s} {'MB/s':>10s}")
    for w in load_experiment(SPEC).workloads:
        if w.ranks < 2048 or (args.workloads and w.label not in args.workloads):
            continue
        workload = kernel_workload(w.kernel, w.ranks, list(w.args))
        best, rate = float("inf"), None
        for _ in range(args.repeat):
            start = time.perf_counter()
            [result] = simulate_all(f"{w.label} at {w.ranks} ranks", platform, workload, [{}],
                                    jobs=1)
            best = min(best, time.perf_counter() - start)
            rate = result.rate_mbs
        print(f"{w.label:10s} {w.ranks:6d} {best:8.2f} {rate:10.1f}")


#: the suite's run of it (tests/bench/test_bench_scripts.py): one workload, once
SMOKE_ARGS = ["--repeat", "1", "--workloads", "vpic-io"]

if __name__ == "__main__":
    main()
