"""Measured configs of a campaign, read back from its rows in the store.

One entry per distinct config, in the order it was first measured, with the median and range
of its repetitions and the prediction the model made for it just before it was measured.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from iotwin.config.settings import settings_text
from iotwin.config.types import Config
from iotwin.core.stats import format_mbs
from iotwin.store.database import Evaluation


@dataclass(frozen=True)
class MeasuredConfig:
    index: int  # 1 = first config measured
    key: str  # the config's hash in the store
    config: Config
    rates: tuple[float, ...]
    repetitions: int
    predicted_mbs: float | None

    @property
    def rate_mbs(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None

    def row(self) -> dict[str, Any]:
        """The CSV row: every figure as it is, the config as JSON."""
        return {"index": self.index, "rate_mbs": self.rate_mbs,
                "rate_min_mbs": min(self.rates) if self.rates else None,
                "rate_max_mbs": max(self.rates) if self.rates else None,
                "repetitions": self.repetitions, "ok": len(self.rates),
                "predicted_mbs": self.predicted_mbs,
                "settings": settings_text(self.config),
                "config": json.dumps(self.config, sort_keys=True)}

    def shown(self) -> dict[str, Any]:
        """The page's row: the config as its settings, rates in MB/s as people read them."""
        return {"#": self.index, "settings (differences from the default)":
                settings_text(self.config),
                "median (MB/s)": rate_text(self.rate_mbs),
                "lowest-highest (MB/s)": (f"{format_mbs(min(self.rates))}-"
                                          f"{format_mbs(max(self.rates))}" if self.rates else ""),
                "runs ok": f"{len(self.rates)} of {self.repetitions}",
                "predicted (MB/s)": rate_text(self.predicted_mbs)}

    @property
    def spread(self) -> tuple[float, float] | None:
        return (min(self.rates), max(self.rates)) if self.rates else None


def rate_text(rate: float | None) -> str:
    return format_mbs(rate) if rate else ""


def percent_text(fraction: float | None) -> str:
    """0.0916 -> 9.2%."""
    return "" if fraction is None else f"{100 * fraction:.1f}%"


def is_search_run(row: Evaluation) -> bool:
    """A measured row of the search itself (not a default / tuned re-measurement after it)."""
    return row.source != "sim" and "label" not in row.details and not row.details.get("summary")


def measured_configs(rows: Sequence[Evaluation]) -> list[MeasuredConfig]:
    first: dict[str, int] = {}
    grouped: dict[str, list[Evaluation]] = {}
    for row in rows:
        if is_search_run(row):
            grouped.setdefault(row.config_hash, []).append(row)
            first.setdefault(row.config_hash, row.id)
    predictions = _prediction_before(rows, first)
    return [MeasuredConfig(i + 1, key, group[0].config,
                           tuple(r.rate_mbs for r in group if r.ok and r.rate_mbs),
                           len(group), predictions.get(key))
            for i, (key, group) in enumerate(grouped.items())]


def _prediction_before(rows: Sequence[Evaluation], first: dict[str, int]
                       ) -> dict[str, float | None]:
    """For each measured config, the last prediction stored before its first measurement."""
    found: dict[str, float | None] = {}
    for row in rows:  # oldest first: later predictions overwrite earlier ones
        if row.source == "sim" and row.config_hash in first and row.id < first[row.config_hash]:
            found[row.config_hash] = row.rate_mbs
    return found


def best_so_far(configs: Sequence[MeasuredConfig]) -> list[float]:
    """The best median rate after each measured config (failed configs keep the best)."""
    curve, best = [], 0.0
    for config in configs:
        best = max(best, config.rate_mbs or 0.0)
        curve.append(best)
    return curve
