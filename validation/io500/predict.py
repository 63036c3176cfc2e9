"""IO500's write phases predicted from each training submission's system description.

    .venv/bin/python validation/io500/predict.py [--segments N] [--seconds S] [--phase P]
        [--write-inputs DIR]

prints, per submission and phase, the predicted and measured rate, their ratio, what binds the
prediction and how long the simulation took; then, per phase, the share within 2x, the median
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
from pathlib import Path

from iotwin.model.family import accuracy
from iotwin.model.sim import simulate, simulator_input
from iotwin.observations.io500 import PHASES, case_platform, io500_cases, phase_workload

TRAIN = Path(__file__).resolve().parents[1] / "data" / "io500-train.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", default=str(TRAIN))
    parser.add_argument("--segments", type=int, help="segments a process (default: the volume "
                        "of --seconds at the model's peak)")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--phase", choices=tuple(PHASES), action="append")
    parser.add_argument("--write-inputs", metavar="DIR", type=Path,
                        help="write each case's iosim input to DIR instead of simulating it")
    args = parser.parse_args()
    cases = io500_cases(args.train, args.phase or tuple(PHASES))
    by_phase: dict[str, list[tuple[float, float]]] = {}
    for case in cases:
        platform = case_platform(case)
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
        why = result.bound_by.get("run", "") if result.ok else f"FAILED {result.error}"
        print(f"{case.submission:4d} {case.system[:22]:22s} {case.phase:10s} "
              f"{predicted / 1000:9.2f} {case.measured_mbs / 1000:9.2f} GB/s "
              f"{predicted / case.measured_mbs:6.2f}x {took:5.1f}s  {why}", flush=True)
    for phase, pairs in by_phase.items():
        found = accuracy([None if math.isnan(p) else p for p, _ in pairs],
                         [m for _, m in pairs])
        print(f"{phase}: {accuracy_text(found)}")
    return 0


def accuracy_text(found: dict[str, float]) -> str:
    """``accuracy``'s figures in one line: within 2x, median factor, rank correlation."""
    return (f"{round(found['within_2x'] * found['cases'])}/{found['cases']} within 2x, median "
            f"factor {found['median_factor']:.2f}x, Spearman {found['spearman']:.2f}")


if __name__ == "__main__":
    sys.exit(main())
