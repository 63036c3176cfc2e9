"""Calibration: fit a platform model's free parameters to measured runs.

The loss is on log rate (a 2x error counts the same at 100 MB/s and at 10 GB/s) and robust
(soft-L1: one run disturbed by another job does not drag the fit), bounded by the ranges the
platform YAML gives each free parameter. Parameters are searched on a log scale when their
range is positive (bandwidths span decades) and on a linear one otherwise. Cross-validation
(k folds) gives the held-out error: how well the calibrated model predicts runs it was not
fitted to, which is what a search relies on. With ``prior_sigma`` the fit is a MAP estimate:
each parameter is pulled toward the platform's value, so that a handful of runs does not
drag the model wherever their noise points.

:class:`SimModel` wraps a platform and a workload as the :class:`~iotwin.model.protocol.Model`
that ``sim-screened`` predicts with and refits after each real batch.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI
from iotwin.core.run_records import Target
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.protocol import Fit
from iotwin.model.sim import SimResult, simulate
from iotwin.workloads.workload import kernel_workload

#: the residual of a config the model cannot simulate: as if it predicted 1000x off
_FAILED_RESIDUAL = math.log(1000.0)
#: soft-L1 scale on log rate: residuals beyond ~10% count linearly, not squared
F_SCALE = 0.1


def soft_l1(residuals: np.ndarray) -> float:
    """The robust loss :func:`fit` minimises, as scipy's ``least_squares`` defines its cost
    with ``loss="soft_l1"`` and ``f_scale`` = 0.1: residuals of log rate beyond ~10% count
    linearly."""
    z = (np.asarray(residuals) / F_SCALE) ** 2
    return float(0.5 * F_SCALE ** 2 * np.sum(2 * (np.sqrt(1 + z) - 1)))


@dataclass(frozen=True)
class Observation:
    """One measured rate of one config on one workload (median of its repetitions)."""

    workload: Mapping[str, Any]
    config: Config
    rate_mbs: float


class ParameterScale:
    """Maps the free parameters to and from the optimiser's vector."""

    def __init__(self, free: Mapping[str, tuple[float, float, float]],
                 start: Mapping[str, float] | None = None) -> None:
        self.names = sorted(free)
        self.log = [free[n][1] > 0 for n in self.names]
        self.lower = np.array([self._to(free[n][1], lg) for n, lg in zip(self.names, self.log,
                                                                          strict=True)])
        self.upper = np.array([self._to(free[n][2], lg) for n, lg in zip(self.names, self.log,
                                                                          strict=True)])
        prior = [self._to(free[n][0], lg) for n, lg in zip(self.names, self.log, strict=True)]
        self.prior = np.clip(prior, self.lower, self.upper)
        begin = [self._to((start or {}).get(n, free[n][0]), lg)
                 for n, lg in zip(self.names, self.log, strict=True)]
        self.start = np.clip(begin, self.lower, self.upper)
        # one prior sigma in the optimiser's units: a log factor, or that fraction of the value
        self.unit = np.array([1.0 if lg else max(abs(free[n][0]), (free[n][2] - free[n][1]) / 100)
                              for n, lg in zip(self.names, self.log, strict=True)])

    @staticmethod
    def _to(value: float, log: bool) -> float:
        return math.log(value) if log else value

    def values(self, x: np.ndarray) -> dict[str, float]:
        return {n: float(math.exp(v) if lg else v)
                for n, v, lg in zip(self.names, x, self.log, strict=True)}


def predict(platform: Platform, observations: Sequence[Observation],
            jobs: int = 2) -> list[float | None]:
    """The platform's simulated rate for each observation's workload and config.

    One simulator call per workload; with several workloads (a calibration design) the calls
    run side by side, one worker each, as a simulator call costs ~0.1 s whatever its size."""
    by_workload: dict[str, list[int]] = {}
    for i, obs in enumerate(observations):
        by_workload.setdefault(json.dumps(obs.workload, sort_keys=True), []).append(i)
    workers_each = jobs if len(by_workload) == 1 else 1

    def simulate_group(indices: list[int]) -> list[SimResult]:
        return simulate(platform, dict(observations[indices[0]].workload),
                        [observations[i].config for i in indices], jobs=workers_each)

    rates: list[float | None] = [None] * len(observations)
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        groups = list(by_workload.values())
        for indices, results in zip(groups, pool.map(simulate_group, groups), strict=True):
            for i, result in zip(indices, results, strict=True):
                rates[i] = result.rate_mbs if result.ok and result.rate_mbs else None
    finally:  # an interrupt or a failure does not wait for the groups not started
        pool.shutdown(wait=True, cancel_futures=True)
    return rates


def log_errors(predicted: Sequence[float | None], observations: Sequence[Observation]
               ) -> np.ndarray:
    return log_ratios(predicted, [o.rate_mbs for o in observations])


def log_ratios(predicted: Sequence[float | None], measured: Sequence[float]) -> np.ndarray:
    """log(predicted / measured) per rate; a failed prediction counts as 1000x off."""
    return np.array([math.log(p / m) if p else _FAILED_RESIDUAL
                     for p, m in zip(predicted, measured, strict=True)])


def relative_error(predicted: Sequence[float | None],
                   observations: Sequence[Observation]) -> float:
    """Median |predicted / measured - 1| (a failed prediction counts as 1000x off)."""
    return float(np.median(np.abs(np.exp(log_errors(predicted, observations)) - 1)))


#: (platform, observations, jobs) -> the simulated rate of each observation
Predictor = Callable[[Platform, Sequence[Observation], int], list[float | None]]


def fit(platform: Platform, observations: Sequence[Observation], *,
        parameters: Sequence[str] | None = None, max_evaluations: int = 60,
        jobs: int = 2, predictor: Predictor | None = None,
        start: Mapping[str, float] | None = None,
        prior_sigma: float | None = None, scan_points: int = 0,
        tolerance: float = 1e-8) -> Fit:
    """Fit ``parameters`` (default: every free one) of ``platform`` to ``observations``.

    ``predictor`` replaces :func:`predict` where an observation is not one plain simulation.
    ``start`` (values by name) replaces the platform's values as the starting point, and
    ``prior_sigma`` (a log factor) regularises each parameter toward the platform's value.
    ``scan_points`` > 1 first moves the start with :func:`coarse_start`. The fit stops once a
    step changes the loss or the parameters by less than ``tolerance`` (relative).
    """
    rates_of = predictor or predict
    if not observations:
        raise UserError("nothing to calibrate on: no successful measured run")
    free = platform.free_parameters()
    chosen = list(parameters) if parameters else sorted(free)
    unknown = [name for name in chosen if name not in free]
    if unknown:
        raise UserError(f"platform {platform.name}: {unknown[0]!r} is not a free parameter "
                        f"(free: {', '.join(sorted(free))})")
    scale = ParameterScale({name: free[name] for name in chosen}, start)

    def residuals(x: np.ndarray) -> np.ndarray:
        candidate = platform.with_values(scale.values(x))
        errors = log_errors(rates_of(candidate, observations, jobs), observations)
        if not prior_sigma:
            return errors
        # a deviation of one prior sigma weighs as much as one observation off by F_SCALE
        return np.concatenate([errors, F_SCALE * (x - scale.prior) / (prior_sigma * scale.unit)])

    begin, scanned = scale.start, 0
    if scan_points > 1:
        begin, scanned = coarse_start(lambda x: soft_l1(residuals(x)), scale.start,
                                      scale.lower, scale.upper, scan_points)
    from scipy.optimize import least_squares  # scipy.optimize takes ~2 s to load: only when fitting

    solution = least_squares(residuals, begin, bounds=(scale.lower, scale.upper),
                             loss="soft_l1", f_scale=F_SCALE, diff_step=0.02,
                             max_nfev=max_evaluations, ftol=tolerance, xtol=tolerance)
    fitted = scale.values(solution.x)
    error = relative_error(rates_of(platform.with_values(fitted), observations, jobs),
                           observations)
    return Fit(fitted, error, None, {"observations": len(observations),
                                             "evaluations": int(solution.nfev) + scanned,
                                             "scan_evaluations": scanned,
                                             "loss": "soft_l1 on log rate",
                                             "prior_sigma": prior_sigma})


def fit_evaluations(fits: int, parameters: int, max_evaluations: int = 60) -> int:
    """The most loss evaluations ``fits`` fits of ``parameters`` spend: ``max_evaluations``
    each, and a Jacobian's one more per parameter after each (least_squares' 2-point
    differences, which its ``max_nfev`` does not count)."""
    return fits * max_evaluations * (1 + parameters)


def coarse_start(cost: Callable[[np.ndarray], float], start: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray, points: int) -> tuple[np.ndarray, int]:
    """One sweep of coordinate search: each parameter in turn tried at ``points`` evenly
    spaced values between its bounds (in the optimiser's units: log for a positive range),
    the others held, and moved to the best if it lowers ``cost``. Returns the point and the
    evaluations spent.

    Why: a simulated rate is piecewise in a parameter (a client cache that holds a whole
    round or not, which mechanism binds), so the loss has plateaus; a gradient fit that
    starts on one sees a zero gradient and stops where it started.
    """
    best, best_cost = np.array(start, dtype=float), cost(start)
    evaluations = 1
    for i in range(len(best)):
        for value in np.linspace(lower[i], upper[i], points):
            trial = best.copy()
            trial[i] = value
            trial_cost = cost(trial)
            evaluations += 1
            if trial_cost < best_cost:
                best, best_cost = trial, trial_cost
    return best, evaluations


def cross_validate(platform: Platform, observations: Sequence[Observation], *, folds: int = 5,
                   seed: int = 0, progress: Callable[[str], None] | None = None,
                   **fit_options: Any) -> Fit:
    """Fit on all observations; the held-out error comes from ``folds``-fold refits.
    ``progress`` is told of each fit as it starts."""
    say = progress or (lambda _line: None)
    folds = min(folds, len(observations))
    if folds < 2:
        raise UserError(f"cross-validation needs at least 2 observations, got "
                        f"{len(observations)}")
    order = list(range(len(observations)))
    random.Random(seed).shuffle(order)
    heldout_errors: list[float] = []
    for fold in range(folds):
        held = [observations[i] for i in order[fold::folds]]
        kept = [observations[i] for i in order if i not in order[fold::folds]]
        say(f"fold {fold + 1} of {folds}: fitting on {len(kept)} cases, {len(held)} held out")
        fitted = fit(platform, kept, **fit_options)
        predicted = predict(platform.with_values(fitted.parameters), held)
        heldout_errors.extend(np.abs(np.exp(log_errors(predicted, held)) - 1))
    say(f"the fit on all {len(observations)} cases")
    final = fit(platform, observations, **fit_options)
    return Fit(final.parameters, final.fit_error, float(np.median(heldout_errors)),
               {**final.details, "folds": folds,
                "heldout_p90": float(np.percentile(heldout_errors, 90))})


@dataclass(frozen=True)
class ScaleHoldout:
    """The model fitted without one scale's observations, predicting them."""

    ranks: int  # the scale held out
    fitted_on: tuple[int, ...]  # the scales it was fitted to
    errors: tuple[float, ...]  # |predicted / measured - 1| of each held-out observation

    @property
    def median_error(self) -> float:
        return float(np.median(self.errors)) if self.errors else math.nan


def leave_one_scale_out(platform: Platform, observations: Sequence[Observation], *,
                        extrapolate: bool = True, progress: Callable[[str], None] | None = None,
                        **fit_options: Any) -> list[ScaleHoldout]:
    """Each scale (the workloads' rank count) held out in turn: fitted to the others (with
    ``extrapolate``, to the smaller scales only, as a site would fit its small jobs and ask
    about a larger one), predicting the held-out scale's observations. ``progress`` is told
    of each fit as it starts."""
    say = progress or (lambda _line: None)
    scales = sorted({int(o.workload["ranks"]) for o in observations})
    found = []
    for scale in scales:
        kept = [o for o in observations if (int(o.workload["ranks"]) < scale if extrapolate
                                            else int(o.workload["ranks"]) != scale)]
        held = [o for o in observations if int(o.workload["ranks"]) == scale]
        if not kept:
            continue
        say(f"{scale} ranks held out: fitting on the {len(kept)} cases of the "
            f"{'smaller' if extrapolate else 'other'} scales")
        fitted = fit(platform, kept, **fit_options)
        predicted = predict(platform.with_values(fitted.parameters), held)
        errors = np.abs(np.exp(log_errors(predicted, held)) - 1)
        found.append(ScaleHoldout(scale, tuple(sorted({int(o.workload["ranks"]) for o in kept})),
                                  tuple(float(e) for e in errors)))
    return found


def influential_parameters(platform: Platform, observations: Sequence[Observation],
                           count: int, factor: float = 0.3, jobs: int = 2,
                           predictor: Predictor | None = None) -> list[str]:
    """The ``count`` free parameters that most reorder the observations' simulated rates when
    scaled by ``exp(factor)`` (spread of the log-rate changes), and the one that most moves
    their level (mean change) if it is not among them: what the measured runs can tell apart,
    and what ranking candidates depends on."""
    rates_of = predictor or predict
    free = platform.free_parameters()
    baseline = rates_of(platform, observations, jobs)
    spread, level = {}, {}
    for name, (value, lower, upper) in sorted(free.items()):
        moved = min(upper, value * math.exp(factor)) if value > 0 else lower + (upper - lower) / 10
        rates = rates_of(platform.with_values({name: moved}), observations, jobs)
        changes = [math.log(r / b) for r, b in zip(rates, baseline, strict=True) if r and b]
        spread[name] = float(np.std(changes)) if changes else 0.0
        level[name] = abs(float(np.mean(changes))) if changes else 0.0
    chosen = sorted(spread, key=lambda n: -spread[n])[:count]
    loudest = max(level, key=lambda n: level[n], default=None)
    if loudest is not None and loudest not in chosen and level[loudest] > 0:
        chosen.append(loudest)
    return [name for name in chosen if spread[name] > 0 or level[name] > 0]


def spread_by_rate(observations: Sequence[Observation], count: int) -> list[Observation]:
    """``count`` of the observations evenly spaced in the order of their rates, the slowest
    and the fastest among them (all of them when ``count`` is 0 or not fewer)."""
    if count <= 0 or len(observations) <= count:
        return list(observations)
    ranked = sorted(observations, key=lambda o: o.rate_mbs)
    if count == 1:
        return ranked[-1:]
    return [ranked[round(i * (len(ranked) - 1) / (count - 1))] for i in range(count)]


@dataclass(frozen=True)
class RefitSettings:
    """How :class:`SimModel` refits itself (sim-screened's ``fit_*`` settings)."""

    parameters: int = 3  # refitted: the most influential on the measured configs
    evaluations: int = 30  # optimiser evaluations per refit
    prior_sigma: float = 0.3  # log factor the machine may plausibly differ from the model
    tolerance: float = 1e-8  # the fit stops at this relative change of loss or parameters
    influence_configs: int = 0  # the influence is judged on this many configs (0: all)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> RefitSettings:
        defaults = cls()
        return cls(int(settings.get("fit_parameters", defaults.parameters)),
                   int(settings.get("fit_evaluations", defaults.evaluations)),
                   float(settings.get("fit_prior_sigma", defaults.prior_sigma)),
                   float(settings.get("fit_tolerance", defaults.tolerance)),
                   int(settings.get("fit_influence_configs", defaults.influence_configs)))


class SimModel:
    """A platform model predicting one workload; refitted to a campaign's measurements.

    Each refit starts from the previous one, fits the parameters that matter for the configs
    measured so far, and is pulled toward the platform's values (``RefitSettings``)."""

    def __init__(self, platform: Platform, workload: Mapping[str, Any],
                 refit: RefitSettings | None = None) -> None:
        self.base = self.platform = platform
        self.workload = dict(workload)
        self.refit = refit or RefitSettings()
        self.fitted: dict[str, float] = {}
        self.platform_name = platform.name

    @classmethod
    def for_target(cls, platform: str, target: Target,
                   settings: Mapping[str, Any] | None = None,
                   workload: Mapping[str, Any] | None = None,
                   mpi: str = DEFAULT_MPI) -> SimModel:
        """The model of ``target`` on ``platform``: a kernel's own workload (run under
        ``mpi``), or a program's captured ``workload``."""
        if workload is None and target.kernel is None:
            raise UserError("a program's workload must be captured before it can be simulated")
        if workload is None:
            workload = kernel_workload(target.kernel or "", target.ranks, target.args, mpi)
        return cls(load_platform(platform), dict(workload),
                   RefitSettings.from_settings(settings or {}))

    def predict(self, configs: Sequence[Config]) -> list[float | None]:
        results = simulate(self.platform, self.workload, configs)
        return [r.rate_mbs if r.ok else None for r in results]

    def fit(self, measured: Sequence[tuple[Config, float]]) -> Fit:
        observations = [Observation(self.workload, config, rate) for config, rate in measured]
        chosen = influential_parameters(self.base, spread_by_rate(
            observations, self.refit.influence_configs), self.refit.parameters)
        if not chosen:  # no free parameter changes these configs' rates: nothing to learn
            return Fit(dict(self.fitted), None, None, {"parameters": "none influential"})
        calibration = fit(self.base, observations, parameters=chosen,
                          max_evaluations=self.refit.evaluations, start=self.fitted,
                          prior_sigma=self.refit.prior_sigma, tolerance=self.refit.tolerance)
        self.use(calibration.parameters)
        return Fit(calibration.parameters, calibration.fit_error, None,
                   {**calibration.details, "parameters": chosen})

    def use(self, parameters: Mapping[str, float]) -> None:
        self.base.check_fitted(parameters)
        self.fitted = dict(parameters)
        self.platform = self.base.with_values(parameters)
