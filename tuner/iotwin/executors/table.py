"""The table executor: real measurements replayed (a measured landscape,
iotwin.studies.landscape).

A run of a config is answered with one of the config's stored repetitions: each config's
repetitions are drawn in a seeded order of their own (the replay seed and the config), without
repeats until all have been drawn, so that a search run and the confirmation runs of the same
config see different measurements where the table has them. A config the table does not hold
is a failed run. Every strategy runs unchanged against it, many times, in seconds; the space is
restricted to the table's configs (:data:`iotwin.executors.REGISTRY`'s ``configs``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from iotwin.executors.base import RunResult, Target
from iotwin.store.database import config_hash
from iotwin.store.source import Source
from iotwin.studies.landscape import Landscape, read_table


class TableExecutor:
    source: Source = "real"  # the rates are real runs of this machine, measured earlier

    def __init__(self, table: Landscape | Path, *, replay_seed: int = 0) -> None:
        self.table = table if isinstance(table, Landscape) else read_table(table)
        self.replay_seed = replay_seed
        self._draws: dict[str, int] = {}

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
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
        draw = self._draws.get(key, 0)
        self._draws[key] = draw + 1
        return RunResult("ok", rate_mbs=measured[order[draw % len(order)]])
