"""VORPAL-IO at the papers' sizes: full simulation vs the suite's step extrapolation.

Prints, for hopper's default and the poster's tuned config at 128 and 512 cores, the rate of
the full T-step simulation, the extrapolated rate from one and two steps, their difference,
and the simulation time of each. Run: .venv/bin/python validation/paper/check_extrapolation.py
[--ranks 128,512] (default both).
"""

from __future__ import annotations

import argparse
import time

from iotwin.model.calibration import Observation, predict
from iotwin.model.platforms import load_platform
from iotwin.validation.paper.cases import STEPS_KEY, with_ranks_per_node
from iotwin.validation.paper.prediction import predict_rates
from iotwin.workloads.workload import kernel_workload

TUNED = {"lustre": {"stripe_count": 96, "stripe_size": 32 << 20},
         "mpiio": {"cb_nodes": 48, "cb_buffer_size": 32 << 20}}


def vorpal(ranks: int, per_node: int, steps: int) -> dict:
    return with_ranks_per_node(kernel_workload("vorpal-io", ranks, ["--block", "100x100x60",
                                                       "--steps", str(steps)]), per_node)


def timed(function, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


SIZES = {128: (24, 20), 512: (16, 19)}  # ranks: (ranks per node, steps) as cases.yaml has them


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ranks", default="128,512", help="comma-separated: 128, 512")
    chosen = [int(r) for r in parser.parse_args().ranks.split(",")]
    platform = load_platform("hopper")
    print("ranks steps config  full MB/s  extrapolated MB/s  difference  full s  extrapolated s")
    for ranks in chosen:
        per_node, steps = SIZES[ranks]
        virtual = {STEPS_KEY: steps, "step_workloads": [vorpal(ranks, per_node, n)
                                                        for n in (1, 2)]}
        full = vorpal(ranks, per_node, steps)
        for label, config in (("default", {}), ("tuned", TUNED)):
            (exact,), exact_s = timed(predict, platform, [Observation(full, config, 1.0)], 1)
            (guess,), guess_s = timed(predict_rates, platform,
                                      [Observation(virtual, config, 1.0)], 1)
            print(f"{ranks:5d} {steps:5d} {label:7s} {exact:10.1f} {guess:18.1f} "
                  f"{100 * (guess / exact - 1):+10.2f}% {exact_s:7.1f} {guess_s:15.1f}")


if __name__ == "__main__":
    main()
