"""The table executor: real measurements replayed (a measured landscape,
iotwin.studies.landscape), and the table itself (:class:`Landscape`, its CSV).

A run of a config is answered with one of the config's stored repetitions: each config's
repetitions are drawn in a seeded order of their own (the replay seed and the config), without
repeats until all have been drawn, so that a search run and the confirmation runs of the same
config see different measurements where the table has them. A config the table does not hold
is a failed run. Every strategy runs unchanged against it, many times, in seconds; the space is
restricted to the table's configs (:data:`iotwin.executors.REGISTRY`'s ``configs``).
"""

from __future__ import annotations

import csv
import json
import random
import statistics
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from iotwin.config.settings import settings_text
from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.core.hashing import canonical_json, config_hash
from iotwin.core.run_records import RunResult, Source, Target


@dataclass(frozen=True)
class Landscape:
    """Configs and the rate (MB/s; None: the run failed) of each in every pass."""

    label: str  # what was measured, e.g. "vpic-io x4 --particles 1048576"
    configs: list[Config]
    rates: list[list[float | None]]  # [config][pass]

    def __post_init__(self) -> None:
        if not self.configs or len(self.configs) != len(self.rates):
            raise UserError(f"landscape {self.label}: needs one row of rates per config")

    def medians(self) -> list[float | None]:
        return list(self._medians)

    @cached_property
    def _medians(self) -> tuple[float | None, ...]:
        return tuple(statistics.median(ok) if (ok := [r for r in row if r]) else None
                     for row in self.rates)

    @cached_property
    def optimum(self) -> float:
        """The best median rate."""
        return max(m for m in self._medians if m is not None)

    def median_of(self, config: Config) -> float | None:
        """The median rate of ``config`` (None: not in the table, or every run failed)."""
        index = self._index.get(config_hash(config))
        return None if index is None else self._medians[index]

    def within(self, config: Config, fraction: float) -> bool:
        """Whether ``config``'s median is within ``fraction`` of the optimum (0.05: 5%)."""
        median = self.median_of(config)
        return median is not None and median >= (1 - fraction) * self.optimum

    def rates_of(self, config: Config) -> list[float | None] | None:
        index = self._index.get(config_hash(config))
        return None if index is None else self.rates[index]

    @cached_property
    def _index(self) -> dict[str, int]:
        """Config hash -> row, computed once (every replayed run looks a config up)."""
        return {config_hash(c): i for i, c in enumerate(self.configs)}


_FIXED_COLUMNS = ("config", "settings", "median_mbs")


def write_table(table: Landscape, path: Path) -> None:
    """The table as CSV: one row per config, its rate in every pass (MB/s)."""
    passes = max(len(row) for row in table.rates)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow([*_FIXED_COLUMNS, *(f"pass{i + 1}_mbs" for i in range(passes))])
        for config, rates, median in zip(table.configs, table.rates, table.medians(),
                                         strict=True):
            writer.writerow([canonical_json(config), settings_text(config), _cell(median),
                             *(_cell(r) for r in rates)])


def read_table(path: Path) -> Landscape:
    """A table written by :func:`write_table`; UserError naming what is wrong with it."""
    try:
        with path.open(newline="") as source:
            rows = list(csv.DictReader(source))
    except OSError as error:
        raise UserError(f"{path}: cannot read the landscape table: {error}") from error
    if not rows or any(column not in rows[0] for column in _FIXED_COLUMNS):
        raise UserError(f"{path}: not a landscape table (expected columns "
                        f"{', '.join(_FIXED_COLUMNS)}, pass1_mbs, ...)")
    passes = sorted((c for c in rows[0] if c.startswith("pass")),
                    key=lambda c: int(c[4:].split("_")[0]))
    configs, rates = [], []
    for line, row in enumerate(rows, start=2):
        try:
            configs.append(validate_config(json.loads(row["config"]), f"{path}:{line}"))
            rates.append([float(row[c]) if row[c] else None for c in passes])
        except (ValueError, TypeError) as error:
            raise UserError(f"{path}:{line}: {error}") from error
    return Landscape(path.stem, configs, rates)


def _cell(rate: float | None) -> str:
    return "" if rate is None else f"{rate:.4g}"


class TableExecutor:
    source: Source = "real"  # the rates are real runs of this machine, measured earlier

    def __init__(self, table: Landscape | Path, *, replay_seed: int = 0) -> None:
        self.table = table if isinstance(table, Landscape) else read_table(table)
        self.replay_seed = replay_seed
        self._draws: dict[str, int] = {}

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        key = config_hash(config)
        draw = self._draws.get(key, 0)
        self._draws[key] = draw + 1
        return self.replay(config, draw)

    def replay(self, config: Config, draw: int) -> RunResult:
        """The ``draw``-th run of ``config`` (0 first): its stored repetitions in an order of
        their own, seeded by the replay seed and the config, cycled. The same draw of a config
        is always the same run, whatever was drawn before."""
        key = config_hash(config)
        rates = self.table.rates_of(config)
        if rates is None:
            return RunResult("failed", error=f"config {key[:12]} is not in the table "
                                             f"{self.table.label}")
        measured = [r for r in rates if r]
        if not measured:
            return RunResult("failed", error=f"every run of config {key[:12]} failed when "
                                             f"the table {self.table.label} was measured")
        order = list(range(len(measured)))
        random.Random(f"{self.replay_seed} {key}").shuffle(order)
        return RunResult("ok", rate_mbs=measured[order[draw % len(order)]])
