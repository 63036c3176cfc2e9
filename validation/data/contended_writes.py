"""ARCHER's given benchio cases with and without the contended node client
(sim-models/src/fs/contended_writes.hpp): per method and striping, the cases within 2x and the
range of predicted / measured; which striping the model says is faster at each scale against
the measurement; and the constant `lustre_client.contended_write_mbs` chosen on a grid with
each scale held out (fitted to the other four, judged on it). Fills the block of
validation/data/README.md; about a minute on 2 cores.

    .venv/bin/python validation/data/contended_writes.py
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from held_out_scales import by_method, factor, given_cases, held_out, on_grid, within
from iotwin.core.readme_block import fill_block
from iotwin.model.platforms import load_platform
from iotwin.observations.published import Case

HERE = Path(__file__).resolve().parent
CONSTANT = "lustre_client.contended_write_mbs"
GRID = (0, 500, 600, 650, 700, 750, 800, 900, 1000)
DEFAULT_LAYOUT = "4 OSTs"  # ARCHER's default stripe count


def directions(cases: Sequence[Case], r: list[float]) -> tuple[int, int]:
    """Of the scales measured on both stripings, how many the model orders as measured."""
    rate = {(c.method, c.block, c.processes, c.striping): (c.rate_mbs, x * c.rate_mbs)
            for c, x in zip(cases, r, strict=True)}
    pairs = [(rate[k], rate[(*k[:3], "defstriped")]) for k in rate
             if k[3] == "striped" and (*k[:3], "defstriped") in rate]
    right = sum((wide[0] > narrow[0]) == (wide[1] > narrow[1]) for wide, narrow in pairs)
    return right, len(pairs)


def report(cases: Sequence[Case], shipped: float) -> str:
    grid = on_grid("archer", CONSTANT, sorted({*GRID, shipped}), cases)
    off, on = grid[0], grid[shipped]
    lines = [f"ARCHER's {len(cases)} given cases; the model as shipped but for the constant.", ""]
    lines += by_method(cases, {"off": off, f"{shipped:g} MB/s": on}, DEFAULT_LAYOUT)
    (right_off, pairs), (right_on, _) = directions(cases, off), directions(cases, on)
    choices = ", ".join(f"{v:g}" for v in GRID if v)
    lines += ["", f"Median factor off: {factor(off):.2f}x; at {shipped:g} MB/s: {factor(on):.2f}x. "
              "Striping ordered as measured (every OST against 4, same method, block and scale): "
              f"off {right_off}/{pairs}, at {shipped:g} MB/s {right_on}/{pairs}.", "",
              f"Each scale held out, the constant chosen from {choices} MB/s by the median factor "
              "on the other scales:", ""]
    loso, judged = held_out(cases, grid, [v for v in GRID if v])
    lines += loso
    lines += ["", f"Held out together: {within(judged)}/{len(judged)} within 2x, median factor "
              f"{factor(judged):.2f}x."]
    return "\n".join(lines)


def main() -> int:
    cases = given_cases("archer")
    shipped = float(load_platform("archer").data["lustre_client"]["contended_write_mbs"])
    fill_block(HERE / "README.md", "contended writes", report(cases, shipped))
    print(f"{HERE / 'README.md'}: the contended writes block", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
