"""The paper validation's figures: for each model (before any fit, fitted, held out), its row
errors and how often it ranks an experiment's tuned config above its default, overall and per
platform."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import numpy as np

from iotwin.core.stats import spearman
from iotwin.validation.paper.results import (
    MODELS,
    Figures,
    Metrics,
    ModelFigures,
    RowErrors,
    RowResult,
    SpeedupCase,
)
from iotwin.validation.paper.rows import FITTED_SETTINGS


def error_metrics(rows: Sequence[RowResult], which: str) -> RowErrors:
    """Median and 90th percentile |predicted / published - 1|, and Spearman's rho."""
    pairs = [(r.published_mbs, getattr(r, f"{which}_mbs")) for r in rows]
    usable = [(p, s) for p, s in pairs if s]
    if not usable:
        return RowErrors(rows=len(pairs), median_abs_error=None, p90_abs_error=None,
                         spearman=None, failed=len(pairs))
    errors = [abs(s / p - 1) for p, s in usable]
    rho = spearman([p for p, _ in usable], [s for _, s in usable]) \
        if len(usable) > 2 else None
    return RowErrors(rows=len(pairs), median_abs_error=float(statistics.median(errors)),
                     p90_abs_error=float(np.percentile(errors, 90)),
                     spearman=None if rho is None or math.isnan(rho) else float(rho),
                     failed=len(pairs) - len(usable))


def case_results(rows: Sequence[RowResult]) -> list[SpeedupCase]:
    """Each experiment with a default and a tuned row: the tuned row's speedup, published and
    as each model simulates it."""
    by_case: dict[tuple[str, str, str, int], dict[str, RowResult]] = {}
    for row in rows:
        by_case.setdefault((row.source, row.model, row.kernel, row.cores), {})[row.setting] = row
    results = []
    for (_, model, kernel, cores), pair in by_case.items():
        if set(pair) != set(FITTED_SETTINGS):
            continue
        default, tuned = pair["default"], pair["tuned"]
        results.append(SpeedupCase(
            f"{model} {kernel} {cores}", tuned.origin,
            tuned.published_mbs / default.published_mbs,
            *(_ratio(getattr(tuned, f"{w}_mbs"), getattr(default, f"{w}_mbs")) for w in MODELS)))
    return results


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator and denominator else None


def validation_metrics(rows: Sequence[RowResult]) -> Metrics:
    """The figures overall and per platform."""
    platforms = sorted({r.model for r in rows})
    return Metrics(overall=_figures(rows),
                   per_platform={m: _figures([r for r in rows if r.model == m])
                                 for m in platforms})


def _figures(rows: Sequence[RowResult]) -> Figures:
    figures = {}
    for which in MODELS:
        ran = {r.model for r in rows if getattr(r, f"{which}_mbs")}
        if not ran:
            continue  # not run (leave-one-out skipped)
        used = [r for r in rows if r.model in ran]  # platforms it ran on (their failures count)
        cases = case_results(used)
        published = [c for c in cases if c.origin == "published"]
        figures[which] = ModelFigures(
            **error_metrics(used, which),
            tuned_above_default=sum(c.ranks_tuned_above(which) for c in cases),
            published_configs_above=sum(c.ranks_tuned_above(which) for c in published),
            cases=len(cases), published_config_cases=len(published))
    return figures
