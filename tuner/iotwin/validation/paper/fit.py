"""A platform model's chosen free parameters fitted to its published rows.

The fit is :func:`iotwin.model.calibration.fit` (bounds from the platform YAML, a robust
loss on log rate), in rounds: between two rounds the tuned rows whose parameters are not
published re-choose their config, the model's own optimum, under the model as fitted so far.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from iotwin.model import calibration as calibrate
from iotwin.model.calibration import Observation
from iotwin.model.platforms import Platform
from iotwin.validation.paper.cases import Case
from iotwin.validation.paper.prediction import Predicted, predict_cases, predict_rates
from iotwin.validation.paper.settings import FitBudget


def robust_loss(predicted: Sequence[float | None], published: Sequence[float]) -> float:
    """The soft-L1 loss on log rate that the fit minimises (a failed prediction: 1000x off),
    doubled: the scale the recorded losses were reported in."""
    return 2 * calibrate.soft_l1(calibrate.log_ratios(predicted, published))


@dataclass
class PlatformFit:
    """A platform's fit as results.json records it."""

    model: str
    parameters: dict[str, float]
    before: dict[str, float]
    loss_before: float
    loss_after: float
    evaluations: int
    rounds: int
    converged: bool

    def on_bound(self, platform: Platform) -> list[str]:
        """The fitted parameters that ended within 1% (of the log range) of a bound."""
        free = platform.free_parameters()
        return [name for name, value in self.parameters.items()
                if _near_bound(value, *free[name][1:])]


def _near_bound(value: float, lower: float, upper: float) -> bool:
    if lower > 0:
        value, lower, upper = math.log(value), math.log(lower), math.log(upper)
    return min(value - lower, upper - value) <= 0.01 * (upper - lower)


def fit_cases(platform: Platform, cases: Sequence[Case], parameters: Sequence[str],
              budget: FitBudget) -> tuple[Platform, PlatformFit]:
    """Fit ``parameters`` of ``platform`` to ``cases`` in rounds until converged.

    Each round is a bounded least-squares fit of ``budget.evaluations_per_round`` evaluations
    from where the last one ended (the first from a coarse start of ``budget.scan_points``
    per parameter), after which the model-optimum configs are re-chosen under the fitted
    model. Converged: the configs stayed, and the fit stopped by itself or lowered
    the loss by less than ``budget.tolerance``. A round that raises the loss is not kept.
    """
    published = [case.published_mbs for case in cases]
    chosen = predict_cases(platform, cases)
    loss_before = loss = robust_loss([p.rate_mbs for p in chosen], published)
    fitted, values = platform, dict[str, float]()
    evaluations, rounds, converged = 0, 0, not parameters
    while parameters and not converged and rounds < budget.max_rounds:
        rounds += 1
        done = _fit_round(platform, cases, chosen, parameters, budget, values, rounds == 1)
        evaluations += done.evaluations
        new_loss = robust_loss([p.rate_mbs for p in done.chosen], published)
        if new_loss > loss:
            break
        settled = [p.config for p in done.chosen] == [p.config for p in chosen]
        converged = settled and (done.stopped_by_itself
                                 or loss - new_loss <= budget.tolerance * loss)
        fitted, values, chosen, loss = done.fitted, done.values, done.chosen, new_loss
    free = platform.free_parameters()
    now = fitted.free_parameters()
    return fitted, PlatformFit(
        model=platform.name, parameters={n: now[n][0] for n in parameters},
        before={n: free[n][0] for n in parameters}, loss_before=loss_before, loss_after=loss,
        evaluations=evaluations, rounds=rounds, converged=converged)


@dataclass(frozen=True)
class _Round:
    """What one round of the fit found."""

    fitted: Platform
    values: dict[str, float]  # the fitted parameters' values
    chosen: list[Predicted]  # each case's config and rate on the fitted platform
    evaluations: int
    stopped_by_itself: bool  # before its budget of evaluations


def _fit_round(platform: Platform, cases: Sequence[Case], chosen: Sequence[Predicted],
               parameters: Sequence[str], budget: FitBudget, start: dict[str, float],
               first: bool) -> _Round:
    """One bounded least-squares fit from ``start`` with the cases at their ``chosen``
    configs, and the configs re-chosen under its result."""
    observations = [Observation(c.workload, p.config, c.published_mbs)
                    for c, p in zip(cases, chosen, strict=True)]
    calibration = calibrate.fit(platform, observations, parameters=parameters,
                                max_evaluations=budget.evaluations_per_round,
                                predictor=predict_rates, start=start,
                                scan_points=budget.scan_points if first else 0)
    used = int(calibration.details.get("evaluations", 0))
    scanned = int(calibration.details.get("scan_evaluations", 0))
    fitted = platform.with_values(calibration.parameters)
    return _Round(fitted, calibration.parameters, predict_cases(fitted, cases), used,
                  used - scanned < budget.evaluations_per_round)
