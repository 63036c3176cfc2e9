"""IO500's write phases predicted from each training submission's system description.

    .venv/bin/python validation/io500/predict.py [--segments N] [--seconds S] [--phase P]
        [--family] [--write-inputs DIR]

prints, per submission and phase, what the description gives (file system, client nodes x
processes a node, data servers, storage devices and their type, network), the predicted and
measured rate, their ratio, what binds the prediction with its share of the simulated time and
how long the simulation took; then, per phase, the share within 2x, the median
factor off and the rank correlation across submissions. With ``--write-inputs DIR`` it
simulates nothing and writes each case's iosim input as ``DIR/SUBMISSION-PHASE.json`` (run one
with ``iosim --jobs 1 DIR/15-hard-write.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iotwin.model.family import accuracy, family_defaults
from iotwin.model.sim import SimResult, simulate, simulator_input
from iotwin.observations.io500 import PHASES, case_platform, io500_cases, phase_workload

TRAIN = Path(__file__).resolve().parents[1] / "data" / "io500-train.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", default=str(TRAIN))
    parser.add_argument("--segments", type=int, help="segments a process (default: the volume "
                        "of --seconds at the model's peak)")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--phase", choices=tuple(PHASES), action="append")
    parser.add_argument("--family", action="store_true",
                        help="models on the shipped family constants (data/family-io500.yaml), "
                        "as platform new --io500 builds them, instead of the sheet defaults' "
                        "priors")
    parser.add_argument("--write-inputs", metavar="DIR", type=Path,
                        help="write each case's iosim input to DIR instead of simulating it")
    args = parser.parse_args()
    cases = io500_cases(args.train, args.phase or tuple(PHASES))
    defaults = family_defaults() if args.family else None
    by_phase: dict[str, list[tuple[float, float]]] = {}
    for case in cases:
        platform = case_platform(case, defaults)
        workload = phase_workload(platform, case.phase, case.ranks, case.nodes,
                                  segments=args.segments, seconds=args.seconds)
        if args.write_inputs:
            args.write_inputs.mkdir(parents=True, exist_ok=True)
            path = args.write_inputs / f"{case.submission}-{case.phase}.json"
            path.write_text(json.dumps(simulator_input(platform, workload, [{}])))
            print(path)
            continue
        start = time.monotonic()
        [result] = simulate(platform, workload, [{}], jobs=1)
        took = time.monotonic() - start
        predicted = result.rate_mbs if result.ok and result.rate_mbs else float("nan")
        by_phase.setdefault(case.phase, []).append((predicted, case.measured_mbs))
        why = binding(result) if result.ok else f"FAILED {result.error}"
        print(f"{case.submission:4d} {case.system[:22]:22s} {case.phase:10s} "
              f"{described(case.record)}  {predicted / 1000:9.2f} "
              f"{case.measured_mbs / 1000:9.2f} GB/s {predicted / case.measured_mbs:6.2f}x "
              f"{took:5.1f}s  {why}", flush=True)
    for phase, pairs in by_phase.items():
        found = accuracy([None if math.isnan(p) else p for p, _ in pairs],
                         [m for _, m in pairs])
        print(f"{phase}: {accuracy_text(found)}")
    return 0


def described(record: Mapping[str, Any]) -> str:
    """What a system description gives of the machine, in one line."""
    return (f"{record['filesystem_type']} {record['client_nodes']}x{record['procs_per_node']} "
            f"{record['ds_nodes']} servers {record['ds_storage_devices']} "
            f"{record['ds_storage_type']} {record['ds_network']}")


def binding(result: SimResult) -> str:
    """What binds the simulated run, with its share of the run's time."""
    bound = result.bound_by.get("run", "")
    total = sum(result.time_by_mechanism.values())
    share = result.time_by_mechanism.get(bound, 0.0) / total if total else 0.0
    return f"{bound} ({share:.0%})"


def accuracy_text(found: dict[str, float]) -> str:
    """``accuracy``'s figures in one line: within 2x, median factor, rank correlation."""
    return (f"{round(found['within_2x'] * found['cases'])}/{found['cases']} within 2x, median "
            f"factor {found['median_factor']:.2f}x, Spearman {found['spearman']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
