"""The poster's spread: its min and max observed runtimes over its search space, against the
fastest and slowest the fitted model simulates over a seeded sample of the same space."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from iotwin.model.calibration import Observation
from iotwin.model.platforms import Platform
from iotwin.validation.paper.cases import Case, sample_configs, workload_bytes
from iotwin.validation.paper.prediction import predict_rates
from iotwin.validation.paper.results import Spread
from iotwin.validation.paper.rows import SPREAD_SETTINGS, PublishedRow
from iotwin.validation.paper.settings import Sampling


def spreads(platform: Platform, rows: Sequence[PublishedRow], cases: Sequence[Case],
            sampling: Sampling) -> list[Spread]:
    """The spread of each experiment of ``cases`` that has min and max observed rows."""
    workloads = {case.row.case: case.workload for case in cases}
    found = []
    for key, workload in workloads.items():
        spread = spread_of(platform, [row for row in rows if row.case == key], workload,
                           sampling)
        if spread:
            found.append(spread)
    return found


def spread_of(platform: Platform, rows: Sequence[PublishedRow], workload: dict[str, Any],
              sampling: Sampling) -> Spread | None:
    """Min and max simulated runtimes over a sample of the space, against the poster's."""
    by_setting = {row.setting: row for row in rows}
    if not set(SPREAD_SETTINGS) <= set(by_setting):
        return None
    lowest, highest = by_setting["min_observed"], by_setting["max_observed"]
    configs = sample_configs(sampling, platform, lowest)
    rates = predict_rates(platform, [Observation(workload, c, 1.0) for c in configs])
    written = workload_bytes(workload)
    runtimes = [written / 1e6 / rate for rate in rates if rate]
    return Spread(f"{lowest.model} {lowest.kernel} {lowest.cores}", lowest.value,
                  highest.value, min(runtimes, default=None), max(runtimes, default=None),
                  len(configs))
