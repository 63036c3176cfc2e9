"""Leave-one-system-out over a grid of constants, without refitting: a cheap judge of a new
mechanism's constant before a full ``calibrate --family``.

    .venv/bin/python validation/io500/constant_grid.py [--phase P] \
        --grid filesystem.lock_conflict_s=0.00025,0.0005,0.001 \
        --grid lustre_client.locked_write_s=0,5e-5,1e-4

simulates each training case of phase P (default hard-write, 64 segments a process, as the
family fit does) at every point of the grid, the other constants at the shipped family fit
(data/family-io500.yaml), and prints, as the family fit would choose among the grid's points
(soft-L1 on log rate): the point fitted to all systems and its accuracy, and each system
predicted at the point that best fits the others (its held-out accuracy). Every grid point is
simulated once, so the held-out figures cost no refits. A path the sheet defaults do not hold
(a mechanism's constant before it has a default) is set as a leaf of its own.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from iotwin.core.dotted import dotted_set
from iotwin.model.calibration import log_ratios, soft_l1
from iotwin.model.family import accuracy, family_defaults, predict_cases
from iotwin.observations.io500 import PHASES, family_cases, io500_cases
from predict import TRAIN, accuracy_text


def grid_axis(text: str) -> tuple[str, list[float]]:
    path, _, values = text.partition("=")
    if not path or not values:
        raise argparse.ArgumentTypeError(f"--grid {text!r}: expected PATH=V1,V2,...")
    return path, [float(v) for v in values.split(",")]


def with_values(defaults: Mapping[str, Any], point: Mapping[str, float]) -> dict[str, Any]:
    tree: dict[str, Any] = copy.deepcopy(dict(defaults))
    for path, value in point.items():
        dotted_set(tree, path, {"value": value, "assumption": "constant_grid.py: a grid point"})
    return tree


def best(points: Sequence[Mapping[str, Any]], keep: Sequence[int],
         measured: Sequence[float]) -> Mapping[str, Any]:
    return min(points, key=lambda p: soft_l1(log_ratios([p["rates"][i] for i in keep],
                                                         [measured[i] for i in keep])))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", default=str(TRAIN))
    parser.add_argument("--phase", choices=tuple(PHASES), default="hard-write")
    parser.add_argument("--segments", type=int, default=64)
    parser.add_argument("--grid", type=grid_axis, action="append", required=True)
    args = parser.parse_args()
    found = [c for c in io500_cases(args.train) if c.phase == args.phase]
    cases = family_cases(found, segments=args.segments)
    measured = [c.measured_mbs for c in cases]
    base = family_defaults()
    paths = [path for path, _ in args.grid]
    points = []
    for values in itertools.product(*(v for _, v in args.grid)):
        point = dict(zip(paths, values, strict=True))
        rates = predict_cases(cases, with_values(base, point), 2)
        points.append({"point": point, "rates": rates})
        print(point, accuracy_text(accuracy(rates, measured)), flush=True)
    fitted = best(points, range(len(cases)), measured)
    held: list[float | None] = [None] * len(cases)
    for system in sorted({c.system for c in cases}):
        keep = [i for i, c in enumerate(cases) if c.system != system]
        chosen = best(points, keep, measured)
        print(f"  {system} held out: {chosen['point']}")
        for i, c in enumerate(cases):
            if c.system == system:
                held[i] = chosen["rates"][i]
    fitted_accuracy = accuracy_text(accuracy(fitted["rates"], measured))
    print(f"fitted to all systems: {fitted['point']} {fitted_accuracy}")
    print(f"each system held out: {accuracy_text(accuracy(held, measured))}")
    for c, f, h in zip(cases, fitted["rates"], held, strict=True):
        print(f"{c.label:16s} {c.measured_mbs / 1000:8.2f} GB/s  "
              f"fitted {(f or 0) / c.measured_mbs:5.2f}x  "
              f"held out {(h or 0) / c.measured_mbs:5.2f}x  {c.system}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
