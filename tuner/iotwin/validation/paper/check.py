"""The run of record re-evaluated without a refit: what a change to the simulator moved.

A full run fits every platform and refits it once per row (an hour or more on two cores).
Its rows' prior and fitted rates need none of that: the priors are in the platform YAMLs and
the fitted values in ``calibrations.json``, so each selected row is simulated under both (a
model-optimum row's config chosen again among its candidates), the fit's losses and the
poster's spreads recomputed from them, and every figure compared with ``results.json``. The
leave-one-out and leave-one-scale-out refits and the sensitivity scan are not re-run: a
re-evaluated record keeps what the run of record found for them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform
from iotwin.model.platforms import load_platform as platform_from_file
from iotwin.validation.paper.cases import Case, KernelWorkload, LoadPlatform
from iotwin.validation.paper.fit import PlatformFit, robust_loss
from iotwin.validation.paper.leave_out import Progress
from iotwin.validation.paper.metrics import case_results, validation_metrics
from iotwin.validation.paper.prediction import MEMO, Predicted, predict_cases
from iotwin.validation.paper.results import PaperValidation, RowResult, Spread
from iotwin.validation.paper.rows import PublishedRow
from iotwin.validation.paper.selection import select_cases
from iotwin.validation.paper.settings import Settings, load_settings
from iotwin.validation.paper.spread import spreads
from iotwin.workloads.workload import kernel_workload as kernel_description

#: the relative change below which a figure is the same: iosim's order of floating-point
#: sums, not a mechanism (a batch's configs shared a worker's phase cache before each config
#: had its own child, and the run of record's batched rates differ from today's in their last
#: bits, 5e-11 at most, on the iosim they were recorded with)
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Difference:
    """One figure of the record that the re-evaluation does not reproduce."""

    item: str  # a row's label, a platform's fit or an experiment's spread
    figure: str  # prior_mbs, fitted_mbs, config, loss_before, simulated_min_s, ...
    recorded: Any
    now: Any


@dataclass(frozen=True)
class RecordCheck:
    """The record with the re-evaluated figures in place, and what differs from it."""

    result: PaperValidation
    differences: list[Difference]
    checked: int  # rows re-evaluated
    tolerance: float  # the relative change below which a figure counts as the same


def read_record(directory: Path) -> tuple[PaperValidation, dict[str, Any]]:
    """``results.json`` and ``calibrations.json`` of ``directory``."""
    found = []
    for name in ("results.json", "calibrations.json"):
        try:
            found.append(json.loads((directory / name).read_text()))
        except (OSError, json.JSONDecodeError) as error:
            raise UserError(f"{directory / name}: not a run of record to check: {error}") from error
    return PaperValidation.from_json(found[0]), found[1]


def check_record(recorded: PaperValidation, calibrations: Mapping[str, Any], *,
                 settings_path: Path | None = None,
                 platforms: Sequence[str] | None = None,
                 kernels: Sequence[str] | None = None,
                 load_platform: LoadPlatform | None = None,
                 kernel_workload: KernelWorkload | None = None,
                 progress: Progress | None = None,
                 partial: Path | None = None,
                 tolerance: float = TOLERANCE) -> RecordCheck:
    """Each selected row simulated under its platform's priors and recorded calibration,
    compared with ``recorded``: a figure differs when it moved by more than ``tolerance``
    (relative); ``partial`` logs the simulations as the full run does."""
    settings = load_settings(settings_path)
    selection = select_cases(settings, platforms, kernels, load_platform or platform_from_file,
                             kernel_workload or kernel_description)
    MEMO.keep_in(partial)
    result, differences = recorded, []
    for part in selection.platforms:
        if progress:
            progress(f"{part.model}: the recorded fit re-evaluated")
        prior = part.platform.with_priors()
        fitted = prior.with_values(_calibration(recorded, calibrations, part.model))
        result, found = _checked_platform(result, prior, fitted, selection.rows, part.cases,
                                          settings)
        differences += [d for d in found if _beyond(d, tolerance)]
    return RecordCheck(result, differences, len(selection.cases), tolerance)


def _beyond(difference: Difference, tolerance: float) -> bool:
    """Whether a figure moved by more than ``tolerance`` of its recorded value (a config,
    or a rate that failed or came back, always)."""
    moved = _relative(difference.recorded, difference.now)
    return moved is None or abs(moved) > tolerance


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _calibration(recorded: PaperValidation, calibrations: Mapping[str, Any],
                 model: str) -> dict[str, float]:
    name = recorded.calibration_ids.get(model)
    if name is None:
        raise UserError(f"results.json: platform {model} has no recorded fit to check")
    if name not in calibrations:
        raise UserError(f"calibrations.json: no calibration {name} (platform {model}'s fit in "
                        "results.json)")
    return dict(calibrations[name]["parameters"])


def _checked_platform(recorded: PaperValidation, prior: Platform, fitted: Platform,
                      rows: Sequence[PublishedRow], cases: Sequence[Case], settings: Settings
                      ) -> tuple[PaperValidation, list[Difference]]:
    """``recorded`` with one platform's cases, fit losses and spreads re-evaluated."""
    before, after = predict_cases(prior, cases), predict_cases(fitted, cases)
    by_label = {row.label: row for row in recorded.rows}
    differences, now = [], {}
    for case, at_prior, at_fitted in zip(cases, before, after, strict=True):
        old = by_label.get(case.row.label)
        if old is None:
            raise UserError(f"results.json: no row {case.row.label} to check")
        now[old.label] = _reevaluated(old, at_prior, at_fitted)
        differences += _row_differences(old, now[old.label])
    fits, found = _fits(recorded, prior.name, cases, before, after)
    differences += found
    spread_now = spreads(fitted, rows, cases, settings.spread)
    differences += _spread_differences(recorded.spreads, spread_now)
    return _with(recorded, now, fits, spread_now), differences


def _reevaluated(old: RowResult, prior: Predicted, fitted: Predicted) -> RowResult:
    return replace(old, prior_mbs=prior.rate_mbs, fitted_mbs=fitted.rate_mbs,
                   config=fitted.config)


def _row_differences(old: RowResult, new: RowResult) -> list[Difference]:
    found = [Difference(old.label, figure, getattr(old, figure), getattr(new, figure))
             for figure in ("prior_mbs", "fitted_mbs")
             if getattr(old, figure) != getattr(new, figure)]
    if _canonical(old.config) != _canonical(new.config):
        found.append(Difference(old.label, "config", old.config, new.config))
    return found


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _fits(recorded: PaperValidation, model: str, cases: Sequence[Case],
          before: Sequence[Predicted], after: Sequence[Predicted]
          ) -> tuple[list[PlatformFit], list[Difference]]:
    """The fits with ``model``'s losses recomputed, when every row it was fitted to was
    re-evaluated (a subset of its rows has another loss)."""
    fit = next(f for f in recorded.fits if f.model == model)
    if len(cases) != sum(row.model == model for row in recorded.rows):
        return recorded.fits, []
    published = [case.published_mbs for case in cases]
    now = replace(fit, loss_before=robust_loss([p.rate_mbs for p in before], published),
                  loss_after=robust_loss([p.rate_mbs for p in after], published))
    differences = [Difference(f"{model} fit", name, getattr(fit, name), getattr(now, name))
                   for name in ("loss_before", "loss_after")
                   if getattr(fit, name) != getattr(now, name)]
    return [now if f is fit else f for f in recorded.fits], differences


def _spread_differences(recorded: Sequence[Spread], now: Sequence[Spread]) -> list[Difference]:
    by_label = {spread.label: spread for spread in recorded}
    found = []
    for spread in now:
        old = by_label.get(spread.label)
        for figure in ("simulated_min_s", "simulated_max_s", "configs"):
            before = getattr(old, figure) if old else None
            if before != getattr(spread, figure):
                found.append(Difference(f"{spread.label} spread", figure, before,
                                        getattr(spread, figure)))
    return found


def _with(recorded: PaperValidation, rows: Mapping[str, RowResult], fits: list[PlatformFit],
          spread_now: Sequence[Spread]) -> PaperValidation:
    """``recorded`` with ``rows`` (by label), ``fits`` and ``spread_now`` in place, and the
    figures that follow from its rows recomputed."""
    new_rows = [rows.get(row.label, row) for row in recorded.rows]
    fresh = {spread.label: spread for spread in spread_now}
    return replace(recorded, rows=new_rows, cases=case_results(new_rows), fits=fits,
                   spreads=[fresh.get(s.label, s) for s in recorded.spreads],
                   metrics=validation_metrics(new_rows))


def summary(check: RecordCheck) -> list[str]:
    """What the check found, a line per differing figure with its relative change."""
    if not check.differences:
        return [f"the record reproduced: {check.checked} rows, their fits and spreads, every "
                f"figure within {check.tolerance:g} of it"]
    items = len({d.item for d in check.differences})
    return [f"{items} of the record's rows, fits and spreads differ "
            f"({check.checked} rows re-evaluated):",
            *(f"  {d.item}: {d.figure} {_shown(d.recorded)} -> {_shown(d.now)}"
              f"{_change(d.recorded, d.now)}" for d in check.differences)]


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return _canonical(value) if isinstance(value, dict) else str(value)


def _change(recorded: Any, now: Any) -> str:
    moved = _relative(recorded, now)
    return "" if moved is None else f" ({100 * moved:+.3g}%)"


def _relative(recorded: Any, now: Any) -> float | None:
    """How far ``now`` moved from ``recorded``, as a fraction of it; None unless both are
    numbers and the recorded one is not zero."""
    if not (_number(recorded) and _number(now)) or not recorded:
        return None
    return float(now / recorded - 1)
