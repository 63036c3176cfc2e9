"""Cirrus' and CSD3's given benchio cases against one process's rate into the Lustre client,
`lustre_client.process_write_mbs`: the sheets' default (1,500 MB/s, an assumption) and the value
each machine's model ships, chosen on a grid with each scale held out. Under ROMIO's default of
one aggregator a node, a node's whole share of a collective write goes through one process, so
this rate binds every case on more OSTs than the node's data needs. Fills the block of
validation/data/README.md; about a minute on 2 cores.

    .venv/bin/python validation/data/process_rates.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from held_out_scales import by_method, factor, given_cases, held_out, on_grid, within
from iotwin.core.readme_block import fill_block
from iotwin.model.platforms import load_platform

HERE = Path(__file__).resolve().parent
CONSTANT = "lustre_client.process_write_mbs"
SHEET_DEFAULT = 1500.0
GRID = (500, 600, 700, 800, 900, 1000, 1200, 1500)
MACHINES = ("cirrus", "csd3")


def report(machine: str) -> str:
    cases = given_cases(machine)
    shipped = float(load_platform(machine).data["lustre_client"]["process_write_mbs"])
    grid = on_grid(machine, CONSTANT, sorted({*GRID, shipped, SHEET_DEFAULT}), cases)
    before, after = grid[SHEET_DEFAULT], grid[shipped]
    lines = [f"**{machine}**, {len(cases)} given cases; the model as shipped but for the rate.", ""]
    lines += by_method(cases, {f"{SHEET_DEFAULT:g} MB/s (sheet default)": before,
                               f"{shipped:g} MB/s (shipped)": after}, "default (1 OST)")
    lines += ["", f"Median factor: {factor(before):.2f}x at {SHEET_DEFAULT:g} MB/s, "
              f"{factor(after):.2f}x at {shipped:g} MB/s. Each scale held out, the rate chosen "
              f"from {', '.join(f'{v:g}' for v in GRID)} MB/s on the other scales:", ""]
    loso, judged = held_out(cases, grid, GRID)
    lines += loso
    lines += ["", f"Held out together: {within(judged)}/{len(judged)} within 2x, median factor "
              f"{factor(judged):.2f}x."]
    return "\n".join(lines)


def main() -> int:
    fill_block(HERE / "README.md", "process rates", "\n\n".join(report(m) for m in MACHINES))
    print(f"{HERE / 'README.md'}: the process rates block", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
