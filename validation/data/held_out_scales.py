"""One platform constant judged on benchio's given rows with each scale held out: the rows'
cases simulated at each value of a grid, the value chosen on the other scales by the median
factor off, judged on the scale left out. validation/data/contended_writes.py and
validation/data/process_rates.py use it."""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.observations.published import Case, observations, read_cases

TABLE = Path(__file__).resolve().parent / "benchio-calibration.csv"


def given_cases(machine: str) -> list[Case]:
    return read_cases(TABLE, machine)


def on_grid(machine: str, constant: str, values: Iterable[float],
            cases: Sequence[Case]) -> dict[float, list[float]]:
    """Per value of ``constant``: predicted / measured of each case, on the machine's shipped
    model but for that constant."""
    shipped = load_platform(machine)
    found = observations(cases, shipped)
    grid = {}
    for value in values:
        print(f"{machine}: {constant} = {value:g}", file=sys.stderr)
        platform = shipped.with_values({constant: value})
        grid[value] = [simulate(platform, o.workload, [o.config])[0].rate_mbs / case.rate_mbs
                       for case, o in zip(cases, found, strict=True)]
    return grid


def factor(xs: Sequence[float]) -> float:
    """The median factor off, either way."""
    return math.exp(statistics.median(abs(math.log(x)) for x in xs))


def within(xs: Sequence[float]) -> int:
    return sum(0.5 <= x <= 2 for x in xs)


def striping_name(case: Case, default_layout: str) -> str:
    """The case's layout in words: every OST, one OST, or the site's default."""
    return {"striped": "every OST", "unstriped": "1 OST"}.get(case.striping, default_layout)


def by_method(cases: Sequence[Case], columns: Mapping[str, list[float]],
              default_layout: str) -> list[str]:
    """Per method and layout, each column's cases within 2x and its range of ratios."""
    lines = ["| method | striping | cases | " + " | ".join(columns) + " |",
             "|---|---|---:|" + "---|" * len(columns)]
    groups = sorted({(c.method, striping_name(c, default_layout)) for c in cases})
    for method, layout in groups:
        picked = [i for i, c in enumerate(cases)
                  if (c.method, striping_name(c, default_layout)) == (method, layout)]
        cells = [f"{within([r[i] for i in picked])} ({min(r[i] for i in picked):.2f}-"
                 f"{max(r[i] for i in picked):.2f})" for r in columns.values()]
        lines.append(f"| {method} | {layout} | {len(picked)} | " + " | ".join(cells) + " |")
    lines.append(f"| all | | {len(cases)} | "
                 + " | ".join(str(within(r)) for r in columns.values()) + " |")
    return lines


def held_out(cases: Sequence[Case], grid: dict[float, list[float]],
             choices: Sequence[float]) -> tuple[list[str], list[float]]:
    """A table row per scale (the value chosen on the others, its cases within 2x, their
    median factor) and every case's ratio when its scale was held out."""
    lines = ["| scale held out | chosen on the others | its cases within 2x | median factor |",
             "|---:|---:|---:|---:|"]
    judged: list[float] = []
    for scale in sorted({c.processes for c in cases}):
        train = [i for i, c in enumerate(cases) if c.processes != scale]
        test = [i for i, c in enumerate(cases) if c.processes == scale]
        best = min(choices, key=lambda v: factor([grid[v][i] for i in train]))
        xs = [grid[best][i] for i in test]
        judged += xs
        lines.append(f"| {scale} | {best:g} | {within(xs)}/{len(xs)} | {factor(xs):.2f}x |")
    return lines, judged
