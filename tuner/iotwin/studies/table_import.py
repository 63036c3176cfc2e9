"""A table measured elsewhere, brought in as a landscape (`iotwin landscape import`).

A site's measurements come as a CSV of runs: one row per run, a column per setting (named as
the space's parameter, or as its key's last part: ``stripe_count`` or ``lustre.stripe_count``)
and a column of rates (MB/s). Each row's settings become a point of the space:

    for each setting column, for each value written there:
        the space's value written the same way (4MiB, 4194304 and "4 MiB" alike), or else, for
        a number, the space's nearest value (on a log scale when both are positive: 3 MiB and
        5 MiB are as far from 4 MiB) -- a snapped value, reported with its distance
        an empty cell (a setting the site did not write, often where it did not apply): the
        space's first value, as for a column not written (reported)
    a parameter no column names is left at the space's first value (reported)
    rows whose settings give the same config are one config, their runs its runs: configs may
    have unequal numbers of runs, and the table keeps them so (empty cells after its runs)

Nothing is assumed of the table beyond its rows: no default config is added.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.units import parse_size
from iotwin.executors.table import Landscape
from iotwin.space.parameters import BoundSpace, Parameter


@dataclass(frozen=True)
class Mapped:
    """A value written in a column, and the space's value it became."""

    column: str
    written: str
    value: Any
    rows: int
    distance: float  # |log(written / value)| of a snapped number; 0: the same value

    def text(self) -> str:
        if not self.written:
            return (f"{self.column} empty -> {self.value!r} (the space's first value, as for a "
                    f"setting no column names), {self.rows} rows")
        how = ("" if self.distance == 0 else
               f" (snapped: {100 * math.expm1(self.distance):.0f}% away)")
        return f"{self.column} = {self.written} -> {self.value!r}{how}, {self.rows} rows"


@dataclass(frozen=True)
class Imported:
    table: Landscape
    mapping: list[Mapped]
    unset: dict[str, Any]  # parameters no column names: the value they were left at
    runs: int

    def texts(self) -> list[str]:
        """What became of the CSV: the mapping of every value, the parameters left alone."""
        counts = sorted({sum(1 for r in row if r) for row in self.table.rates})
        return [f"{self.runs} runs -> {len(self.table.configs)} configs, "
                f"{counts[0]}-{counts[-1]} runs each",
                *(m.text() for m in self.mapping),
                *(f"{name}: no column; left at {value!r}" for name, value in self.unset.items())]


def read_runs(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="") as source:
            rows = list(csv.DictReader(source))
    except OSError as error:
        raise UserError(f"{path}: cannot read the runs: {error}") from error
    if not rows:
        raise UserError(f"{path}: no runs (a header and one row per run expected)")
    return rows


def import_runs(rows: Sequence[Mapping[str, str]], space: BoundSpace, rate_column: str,
                label: str, ignored: Sequence[str] = ()) -> Imported:
    """The runs as a table of ``space``'s configs; UserError naming a column or value that
    does not fit it."""
    columns = [c for c in rows[0] if c != rate_column and c not in ignored]
    if rate_column not in rows[0]:
        raise UserError(f"{label}: no rate column {rate_column!r} (columns: "
                        f"{', '.join(rows[0])})")
    genes = {column: _gene(space, column) for column in columns}
    mapping: dict[tuple[str, str], tuple[Any, float, int]] = {}
    runs: dict[str, list[float | None]] = {}
    configs: dict[str, Config] = {}
    for line, row in enumerate(rows, start=2):
        values = {}
        for column, gene in genes.items():
            written = row[column].strip()
            if (column, written) not in mapping:
                mapping[column, written] = (*_snapped(gene, written, f"{label}:{line}"), 0)
            value, distance, count = mapping[column, written]
            mapping[column, written] = (value, distance, count + 1)
            values[gene.name] = value
        config = space.config(space.point_of(values))
        key = config_hash(config)
        configs.setdefault(key, config)
        runs.setdefault(key, []).append(_rate(row[rate_column], f"{label}:{line}"))
    width = max(len(r) for r in runs.values())
    table = Landscape(label, list(configs.values()),
                      [r + [None] * (width - len(r)) for r in runs.values()])
    named = {gene.name for gene in genes.values()}
    return Imported(table,
                    [Mapped(column, written, value, count, distance)
                     for (column, written), (value, distance, count) in mapping.items()],
                    {g.name: _not_written(g) for g in space.genes if g.name not in named},
                    len(rows))


def _gene(space: BoundSpace, column: str) -> Parameter:
    for gene in space.genes:
        if column in (gene.name, *gene.keys, *(key.split(".")[-1] for key in gene.keys)):
            return gene
    raise UserError(f"column {column!r} is not a parameter of space {space.name} (its "
                    f"parameters: {', '.join(g.name for g in space.genes)}; a column to "
                    f"leave out: --ignore {column})")


def _not_written(gene: Parameter) -> Any:
    """The value of a setting the site did not write (no column, or an empty cell): the
    space's first."""
    return gene.values[0]


def _snapped(gene: Parameter, written: str, where: str) -> tuple[Any, float]:
    """The space's value ``written`` stands for, and its log distance (0: the same)."""
    if not written:
        return _not_written(gene), 0.0
    parsed = _parsed(written)
    same = next((value for value in gene.values if _same(value, parsed)), _NONE)
    if same is not _NONE:
        return same, 0.0
    number = _as_number(parsed)
    numbers = [(v, n) for v in gene.values if (n := _as_number(v)) is not None]
    if number is not None and numbers:
        return min(((v, _distance(number, n)) for v, n in numbers), key=lambda pair: pair[1])
    raise UserError(f"{where}: {gene.name}: {written!r} is none of {list(gene.values)}")


_NONE = object()  # no value of the space is the one written


def _same(value: Any, parsed: Any) -> bool:
    number = _as_number(value)
    if number is not None:
        return number == _as_number(parsed)
    if isinstance(value, str) and isinstance(parsed, str):
        return value.lower() == parsed.lower()
    return bool(value == parsed)


def _parsed(written: str) -> Any:
    try:
        return parse_size(written)
    except ValueError:
        pass
    try:
        return yaml.safe_load(written)
    except yaml.YAMLError:
        return written


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _distance(written: float, value: float) -> float:
    if written > 0 and value > 0:
        return abs(math.log(written / value))
    return abs(written - value)


def _rate(cell: str, where: str) -> float | None:
    """A run's rate (None: empty, a failed run)."""
    if not cell.strip():
        return None
    try:
        rate = float(cell)
    except ValueError as error:
        raise UserError(f"{where}: rate {cell!r} is not a number") from error
    if rate < 0 or math.isnan(rate):
        raise UserError(f"{where}: rate {cell!r} is not a rate (MB/s >= 0)")
    return rate or None
