"""Calibration: fit a platform model's free parameters to measured runs.

The loss is on log rate (a 2x error counts the same at 100 MB/s and at 10 GB/s) and robust
(soft-L1: one run disturbed by another job does not drag the fit), bounded by the ranges the
platform YAML gives each free parameter. Parameters are searched on a log scale when their
range is positive (bandwidths span decades) and on a linear one otherwise. Cross-validation
(k folds) gives the held-out error: how well the calibrated model predicts runs it was not
fitted to, which is what a search relies on.

:class:`SimModel` wraps a platform and a workload as the :class:`~iotwin.campaign.Model`
that ``sim-screened`` predicts with and refits after each real batch.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from iotwin.campaign import Fit
from iotwin.errors import UserError
from iotwin.executors.base import Target
from iotwin.platforms import Platform, load_platform
from iotwin.sim import simulate
from iotwin.store import Evaluation, Store
from iotwin.workload import kernel_workload

#: the residual of a config the model cannot simulate: as if it predicted 1000x off
_FAILED_RESIDUAL = math.log(1000.0)


@dataclass(frozen=True)
class Observation:
    """One measured rate of one config on one workload (median of its repetitions)."""

    workload: Mapping[str, Any]
    config: Mapping[str, Any]
    rate_mbs: float


@dataclass(frozen=True)
class Calibration:
    parameters: dict[str, float]
    fit_error: float  # median |predicted / measured - 1| on the fitted observations
    heldout_error: float | None  # the same on held-out folds (None: not cross-validated)
    details: dict[str, Any] = field(default_factory=dict)


class _Scale:
    """Maps the free parameters to and from the optimiser's vector."""

    def __init__(self, free: Mapping[str, tuple[float, float, float]]) -> None:
        self.names = sorted(free)
        self.log = [free[n][1] > 0 for n in self.names]
        self.lower = np.array([self._to(free[n][1], lg) for n, lg in zip(self.names, self.log,
                                                                          strict=True)])
        self.upper = np.array([self._to(free[n][2], lg) for n, lg in zip(self.names, self.log,
                                                                          strict=True)])
        start = [self._to(free[n][0], lg) for n, lg in zip(self.names, self.log, strict=True)]
        self.start = np.clip(start, self.lower, self.upper)

    @staticmethod
    def _to(value: float, log: bool) -> float:
        return math.log(value) if log else value

    def values(self, x: np.ndarray) -> dict[str, float]:
        return {n: float(math.exp(v) if lg else v)
                for n, v, lg in zip(self.names, x, self.log, strict=True)}


def predict(platform: Platform, observations: Sequence[Observation],
            jobs: int = 2) -> list[float | None]:
    """The platform's simulated rate for each observation's workload and config."""
    by_workload: dict[str, list[int]] = {}
    for i, obs in enumerate(observations):
        by_workload.setdefault(json.dumps(obs.workload, sort_keys=True), []).append(i)
    rates: list[float | None] = [None] * len(observations)
    for indices in by_workload.values():
        workload = observations[indices[0]].workload
        results = simulate(platform, dict(workload), [observations[i].config for i in indices],
                           jobs=jobs)
        for i, result in zip(indices, results, strict=True):
            rates[i] = result.rate_mbs if result.ok and result.rate_mbs else None
    return rates


def log_errors(predicted: Sequence[float | None], observations: Sequence[Observation]
               ) -> np.ndarray:
    return np.array([math.log(p / o.rate_mbs) if p else _FAILED_RESIDUAL
                     for p, o in zip(predicted, observations, strict=True)])


def relative_error(predicted: Sequence[float | None],
                   observations: Sequence[Observation]) -> float:
    """Median |predicted / measured - 1| (a failed prediction counts as 1000x off)."""
    return float(np.median(np.abs(np.exp(log_errors(predicted, observations)) - 1)))


#: (platform, observations, jobs) -> the simulated rate of each observation
Predictor = Callable[[Platform, Sequence[Observation], int], list[float | None]]


def fit(platform: Platform, observations: Sequence[Observation], *,
        parameters: Sequence[str] | None = None, max_evaluations: int = 60,
        jobs: int = 2, predictor: Predictor | None = None) -> Calibration:
    """Fit ``parameters`` (default: every free one) of ``platform`` to ``observations``.

    ``predictor`` replaces :func:`predict` where an observation is not one plain simulation.
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
    scale = _Scale({name: free[name] for name in chosen})

    def residuals(x: np.ndarray) -> np.ndarray:
        candidate = platform.with_values(scale.values(x))
        return log_errors(rates_of(candidate, observations, jobs), observations)

    solution = least_squares(residuals, scale.start, bounds=(scale.lower, scale.upper),
                             loss="soft_l1", f_scale=0.1, diff_step=0.02,
                             max_nfev=max_evaluations)
    fitted = scale.values(solution.x)
    error = relative_error(rates_of(platform.with_values(fitted), observations, jobs),
                           observations)
    return Calibration(fitted, error, None, {"observations": len(observations),
                                             "evaluations": int(solution.nfev),
                                             "loss": "soft_l1 on log rate"})


def cross_validate(platform: Platform, observations: Sequence[Observation], *, folds: int = 5,
                   seed: int = 0, **fit_options: Any) -> Calibration:
    """Fit on all observations; the held-out error comes from ``folds``-fold refits."""
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
        fitted = fit(platform, kept, **fit_options)
        predicted = predict(platform.with_values(fitted.parameters), held)
        heldout_errors.extend(np.abs(np.exp(log_errors(predicted, held)) - 1))
    final = fit(platform, observations, **fit_options)
    return Calibration(final.parameters, final.fit_error, float(np.median(heldout_errors)),
                       {**final.details, "folds": folds})


class SimModel:
    """A platform model predicting one workload; refitted to a campaign's measurements."""

    def __init__(self, platform: Platform, workload: Mapping[str, Any],
                 parameters: Sequence[str] | None = None, max_evaluations: int = 20) -> None:
        self.base = self.platform = platform
        self.workload = dict(workload)
        self.parameters = parameters
        self.max_evaluations = max_evaluations
        self.platform_name = platform.name

    @classmethod
    def for_target(cls, platform: str, target: Target) -> SimModel:
        if target.kernel is None:
            raise UserError("only a kernel's workload can be simulated")
        return cls(load_platform(platform),
                   kernel_workload(target.kernel, target.ranks, target.args))

    def predict(self, configs: Sequence[Mapping[str, Any]]) -> list[float | None]:
        results = simulate(self.platform, self.workload, configs)
        return [r.rate_mbs if r.ok else None for r in results]

    def fit(self, measured: Sequence[tuple[Mapping[str, Any], float]]) -> Fit:
        observations = [Observation(self.workload, config, rate) for config, rate in measured]
        calibration = fit(self.base, observations, parameters=self.parameters,
                          max_evaluations=self.max_evaluations)
        self.use(calibration.parameters)
        return Fit(calibration.parameters, calibration.fit_error, None, calibration.details)

    def use(self, parameters: Mapping[str, float]) -> None:
        self.platform = self.base.with_values(parameters)



def observations_from_store(store: Store, platform: str, campaign_id: int | None = None
                            ) -> tuple[list[Observation], list[str]]:
    """Measured runs of a platform (or of one campaign) as observations: the median rate of
    each (workload, ranks, config); and notes on what could not be used."""
    grouped: dict[tuple[str, int, str], list[Evaluation]] = {}
    for row in store.evaluations(campaign_id, platform=platform, status="ok"):
        if row.source != "sim" and row.rate_mbs:
            grouped.setdefault((row.workload, row.ranks, row.config_hash), []).append(row)
    workloads: dict[tuple[str, int], dict[str, Any] | None] = {}
    observations, notes = [], []
    for (label, ranks, _), rows in grouped.items():
        if (label, ranks) not in workloads:
            workloads[(label, ranks)] = _workload_of_label(label, ranks, notes)
        workload = workloads[(label, ranks)]
        if workload is not None:
            observations.append(Observation(workload, rows[0].config,
                                            statistics.median(r.rate_mbs or 0 for r in rows)))
    return observations, notes


def _workload_of_label(label: str, ranks: int, notes: list[str]) -> dict[str, Any] | None:
    kernel, *args = label.split()
    try:
        return kernel_workload(kernel, ranks, args)
    except Exception as error:  # a program that is not a kernel: nothing to simulate
        notes.append(f"skipped `{label}` x{ranks}: {error}")
        return None
