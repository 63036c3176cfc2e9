"""ARCHER's given benchio cases with and without the contended node client
(sim-models/src/fs/contended_writes.hpp): per method and striping, the cases within 2x and the
range of predicted / measured; which striping the model says is faster at each scale against
the measurement; and the constant `lustre_client.contended_write_mbs` chosen on a grid with
each scale held out (fitted to the other four, judged on it). Fills the block of
validation/data/README.md; about a minute on 2 cores.

    .venv/bin/python validation/data/contended_writes.py
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from iotwin.core.readme_block import fill_block
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.observations.published import Case, observations, read_cases

HERE = Path(__file__).resolve().parent
CONSTANT = "lustre_client.contended_write_mbs"
GRID = (0, 500, 600, 650, 700, 750, 800, 900, 1000)


def ratios(value: float, cases: Sequence[Case]) -> list[float]:
    """Predicted / measured of each case, the constant at ``value`` (0: the mechanism off)."""
    archer = load_platform("archer")
    platform = archer.with_values({CONSTANT: value})
    return [simulate(platform, o.workload, [o.config])[0].rate_mbs / case.rate_mbs
            for case, o in zip(cases, observations(cases, archer), strict=True)]


def factor(xs: Sequence[float]) -> float:
    """The median factor off, either way."""
    return math.exp(statistics.median(abs(math.log(x)) for x in xs))


def within(xs: Sequence[float]) -> int:
    return sum(0.5 <= x <= 2 for x in xs)


def _group(case: Case) -> tuple[str, str]:
    method, striping = case.label.split()[:2]
    return method, "every OST" if striping == "striped" else "4 OSTs"


def by_method(cases: Sequence[Case], off: list[float], on: list[float], value: float) -> list[str]:
    lines = [f"| method | striping | cases | off | {value:g} MB/s |", "|---|---|---:|---|---|"]
    for group in sorted({_group(c) for c in cases}):
        picked = [i for i, c in enumerate(cases) if _group(c) == group]
        cells = [f"{within([r[i] for i in picked])} ({min(r[i] for i in picked):.2f}-"
                 f"{max(r[i] for i in picked):.2f})" for r in (off, on)]
        lines.append(f"| {group[0]} | {group[1]} | {len(picked)} | {cells[0]} | {cells[1]} |")
    lines.append(f"| all | | {len(cases)} | {within(off)} | {within(on)} |")
    return lines


def directions(cases: Sequence[Case], r: list[float]) -> tuple[int, int]:
    """Of the scales measured on both stripings, how many the model orders as measured."""
    rate = {(c.label.split()[0], c.label.split()[2], c.processes, _group(c)[1]):
            (c.rate_mbs, x * c.rate_mbs) for c, x in zip(cases, r, strict=True)}
    pairs = [(rate[k], rate[(*k[:3], "4 OSTs")]) for k in rate
             if k[3] == "every OST" and (*k[:3], "4 OSTs") in rate]
    right = sum((wide[0] > narrow[0]) == (wide[1] > narrow[1]) for wide, narrow in pairs)
    return right, len(pairs)


def held_out(cases: Sequence[Case],
             grid: dict[float, list[float]]) -> tuple[list[str], list[float]]:
    lines = ["| scale held out | chosen on the others | its cases within 2x | median factor |",
             "|---:|---:|---:|---:|"]
    judged: list[float] = []
    for scale in sorted({c.processes for c in cases}):
        train = [i for i, c in enumerate(cases) if c.processes != scale]
        test = [i for i, c in enumerate(cases) if c.processes == scale]
        best = min((v for v in grid if v), key=lambda v: factor([grid[v][i] for i in train]))
        xs = [grid[best][i] for i in test]
        judged += xs
        lines.append(f"| {scale} | {best:g} | {within(xs)}/{len(xs)} | {factor(xs):.2f}x |")
    return lines, judged


def report(cases: Sequence[Case], shipped: float) -> str:
    grid = {}
    for value in sorted({*GRID, shipped}):
        print(f"{CONSTANT} = {value:g}", file=sys.stderr)
        grid[value] = ratios(value, cases)
    off, on = grid[0], grid[shipped]
    lines = [f"ARCHER's {len(cases)} given cases; the model as shipped but for the constant.", ""]
    lines += by_method(cases, off, on, shipped)
    (right_off, pairs), (right_on, _) = directions(cases, off), directions(cases, on)
    choices = ", ".join(f"{v:g}" for v in GRID if v)
    lines += ["", f"Median factor off: {factor(off):.2f}x; at {shipped:g} MB/s: {factor(on):.2f}x. "
              "Striping ordered as measured (every OST against 4, same method, block and scale): "
              f"off {right_off}/{pairs}, at {shipped:g} MB/s {right_on}/{pairs}.", "",
              f"Each scale held out, the constant chosen from {choices} MB/s by the median factor "
              "on the other scales:", ""]
    loso, judged = held_out(cases, grid)
    lines += loso
    lines += ["", f"Held out together: {within(judged)}/{len(judged)} within 2x, median factor "
              f"{factor(judged):.2f}x."]
    return "\n".join(lines)


def main() -> int:
    cases = read_cases(HERE / "benchio-calibration.csv", "archer")
    shipped = float(load_platform("archer").data["lustre_client"]["contended_write_mbs"])
    fill_block(HERE / "README.md", "contended writes", report(cases, shipped))
    print(f"{HERE / 'README.md'}: the contended writes block", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
