"""sim-screened's grey-box surrogate: the simulator's prediction times a learned residual, as far
as the runs say the simulator orders the machine's configs.

    with the prior:     log rate(x) = log simulated(x) + residual(x) + noise
    without (model-free): log rate(x) = the runs' mean log rate + residual(x) + noise
    residual ~ GP(0, k) in both

The simulator, calibrated to the campaign's runs (iotwin.tuning.recalibration), is the prior
mean; the residual is what it cannot represent, learned from the same runs: a Gaussian process
over the config's settings, each searched gene one-hot encoded (a column per value and one
for "inactive"), with the kernel

    k(x, x') = level^2                                    a bias the calibration left
             + effect^2 * onehot(x) . onehot(x')          one factor per setting's value
             + interaction^2 * exp(-|x - x'|^2 / 2 l^2)   configs alike in most settings

whose amplitudes and length l are fitted by marginal likelihood within bounds, from the same
start each time (deterministic given the runs). Each amplitude keeps a floor: a first batch
that the simulator happens to predict within the noise would otherwise fit no residual at all,
and the beliefs would hold the simulator exact on every config nobody ran (a twin's campaign
then saw no gain in any run and stopped on a config 10% from the best). The noise is not
fitted: a config's mean log rate over its n runs carries the noise model's variance / n
(iotwin.search.noise). The mechanisms tie configs that differ only in settings they give no
cost; the effect term learns such a setting's factor from every run that has it, which no
platform parameter carries.

This is Kennedy and O'Hagan's calibration with a model-discrepancy term ("Bayesian calibration
of computer models", JRSS B 63, 2001), fitted in the modular way (Liu, Bayarri and Berger,
Bayesian Analysis 4, 2009): the platform's parameters first, then the discrepancy given them.
In multi-fidelity terms the simulator is the cheap fidelity and the residual the correction
to the expensive one (Kennedy and O'Hagan, Biometrika 87, 2000); as with piBO's prior over the
optimum (Hvarfner et al., ICLR 2022) the simulator's say fades where runs accumulate, here
because the posterior follows the runs where they are and the simulator where they are not.

A simulator may also be wrong where nothing was run: a machine it describes badly (a model
written from what is public about a site) can rank configs backwards, and its prior then leads
the search away from the best. So both hypotheses are fitted to the same runs, and each config's
belief is their Bayesian model average (Hoeting et al., "Bayesian model averaging: a tutorial",
Statistical Science 14, 1999): the prior's weight is the posterior probability that the
simulator is the mean,

    weight = p L_prior / (p L_prior + (1 - p) L_model-free)

with p = ``model_prior`` and L each hypothesis's marginal likelihood of the runs at its fitted
kernel (the same kernel and hyperparameter count in both: the evidence says which mean the
runs need less residual to explain). A simulator that orders the runs as they came keeps the
weight near 1; one that ranks them backwards needs a residual as large as its own spread and
loses it, down to the same surrogate without the prior (weight 0): a model-free Bayesian
optimisation over the same one-hot kernel.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from iotwin.search.noise import Noise
from iotwin.space.parameters import BoundSpace, Point

_LENGTH_BOUNDS = (0.5, 20.0)  # of the interaction term, in one-hot distance (sqrt(2) per gene)


@dataclass(frozen=True)
class _Hypothesis:
    """A residual fitted against one prior mean: the simulator's log rate, or a constant."""

    process: Any  # sklearn's fitted GaussianProcessRegressor
    constant: float | None  # the model-free mean (None: the simulator's log rate is the mean)

    def prior(self, simulated_logs: np.ndarray) -> np.ndarray:
        if self.constant is None:
            return simulated_logs
        return np.full_like(simulated_logs, self.constant)

    @property
    def log_evidence(self) -> float:
        return float(self.process.log_marginal_likelihood_value_)


class GreyBox:
    """Beliefs about configs' log rates: the simulator's where nothing was run, the runs'
    where they were, a Gaussian process between them; the simulator's say weighed by how well
    it explains the runs."""

    def __init__(self, space: BoundSpace, settings: Mapping[str, Any]) -> None:
        self.space = space
        self._start = float(settings["residual_sd"])
        self._smallest = float(settings["residual_min_sd"])
        self._largest = float(settings["residual_max_sd"])
        self._model_prior = float(settings["model_prior"])
        self._with: _Hypothesis | None = None  # the simulator as the mean, once fitted
        self._without: _Hypothesis | None = None  # a constant mean
        self._kernel = self._initial_kernel()
        self._rows: dict[Point, list[float]] = {}  # each point's encoding, once

    @property
    def weight(self) -> float:
        """The prior's weight: the posterior probability that the simulator is the mean (1
        before any run: nothing else speaks)."""
        if self._with is None or self._without is None:
            return 1.0
        odds = (self._with.log_evidence - self._without.log_evidence
                + math.log(self._model_prior / (1 - self._model_prior)))
        return 1.0 / (1.0 + math.exp(-min(max(odds, -700.0), 700.0)))

    @property
    def log_bayes_factor(self) -> float | None:
        """log L_prior - log L_model-free of the last fit (None: none yet)."""
        if self._with is None or self._without is None:
            return None
        return self._with.log_evidence - self._without.log_evidence

    def fit(self, points: Sequence[Point], simulated: Sequence[float],
            runs: Sequence[Sequence[float]], noise: Noise) -> None:
        """Learn the residual from each measured point's runs (rates > 0) against its
        simulated rate, and against the runs' mean."""
        if not points:
            self._with = self._without = None
            return
        logs = np.array([float(np.mean(np.log(rates))) for rates in runs])
        features = self.encode(points)
        alpha = np.array([noise.of_mean(len(r)) for r in runs])
        self._with = _Hypothesis(self._residual(features, logs - np.log(simulated), alpha),
                                 None)
        constant = float(np.mean(logs))
        self._without = _Hypothesis(self._residual(features, logs - constant, alpha), constant)

    def beliefs(self, points: Sequence[Point], simulated: Sequence[float]
                ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of the points' log rates (true rates: no run's noise): the
        two hypotheses' mixture's."""
        features = self.encode(points)
        logs = np.log(np.asarray(simulated, dtype=float))
        if self._with is None or self._without is None:
            return logs, self._kernel(features)
        (mean_with, cov_with), (mean_without, cov_without) = (
            _predict(h, features, logs, return_cov=True) for h in (self._with, self._without))
        weight, gap = self.weight, mean_with - mean_without
        return (weight * mean_with + (1 - weight) * mean_without,
                weight * cov_with + (1 - weight) * cov_without
                + weight * (1 - weight) * np.outer(gap, gap))

    def marginals(self, points: Sequence[Point], simulated: Sequence[float]
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of each point's log rate."""
        features = self.encode(points)
        logs = np.log(np.asarray(simulated, dtype=float))
        if self._with is None or self._without is None:
            return logs, np.sqrt(self._kernel.diag(features))
        (mean_with, sd_with), (mean_without, sd_without) = (
            _predict(h, features, logs, return_std=True) for h in (self._with, self._without))
        weight, gap = self.weight, mean_with - mean_without
        variance = (weight * sd_with ** 2 + (1 - weight) * sd_without ** 2
                    + weight * (1 - weight) * gap ** 2)
        return weight * mean_with + (1 - weight) * mean_without, np.sqrt(variance)

    def encode(self, points: Sequence[Point]) -> np.ndarray:
        """One-hot columns for each searched gene: one per value and one for "inactive", so
        that every config has as many ones and the same prior variance."""
        rows = [self._rows.get(point) or self._rows.setdefault(point, self._row(point))
                for point in points]
        return np.array(rows, dtype=float).reshape(len(points), -1)

    def differing(self, a: Point, b: Point) -> int:
        """In how many searched settings two points differ (a value, or active or not)."""
        rows = self.encode([a, b])
        return round(float(np.abs(rows[0] - rows[1]).sum()) / 2)

    def _row(self, point: Point) -> list[float]:
        values = self.space.values(point)
        row: list[float] = []
        for gene, index in zip(self.space.genes, point, strict=True):
            if len(gene.values) < 2:
                continue
            hot = [0.0] * (len(gene.values) + 1)
            hot[index if self.space.is_active(gene, values) else -1] = 1.0
            row += hot
        return row

    def _residual(self, features: np.ndarray, residuals: np.ndarray, alpha: np.ndarray) -> Any:
        process = _gaussian_process().GaussianProcessRegressor(
            self._initial_kernel(), alpha=alpha, optimizer="fmin_l_bfgs_b",
            n_restarts_optimizer=0, normalize_y=False)
        with warnings.catch_warnings(), _one_thread():
            warnings.simplefilter("ignore")  # an amplitude at its bound: the fit says so
            process.fit(features, residuals)
        return process

    def _initial_kernel(self) -> Any:
        kernels = _gaussian_process().kernels
        variance = self._start ** 2
        bounds = (self._smallest ** 2, self._largest ** 2)
        return (kernels.ConstantKernel(variance, bounds)
                + kernels.ConstantKernel(variance, bounds) * kernels.DotProduct(0.0, "fixed")
                + kernels.ConstantKernel(variance, bounds) * kernels.RBF(2.0, _LENGTH_BOUNDS))


def _predict(hypothesis: _Hypothesis, features: np.ndarray, simulated_logs: np.ndarray,
             **spread: bool) -> tuple[np.ndarray, np.ndarray]:
    """A hypothesis's mean log rate and its spread (``return_std`` or ``return_cov``)."""
    with _one_thread():
        mean, spread_of = hypothesis.process.predict(features, **spread)
    return mean + hypothesis.prior(simulated_logs), spread_of


def _one_thread() -> Any:
    """BLAS on one thread: the surrogate's matrices are as small as a campaign's runs, and
    OpenBLAS's threads only wait for one another (on 2 cores a fit took 18x the CPU time)."""
    return _thread_pools().limit(limits=1)


@functools.cache
def _thread_pools() -> Any:
    """threadpoolctl's controller of the loaded BLAS and OpenMP libraries (scikit-learn's own
    dependency, loaded on first use, as scikit-learn), found once: finding them walks every
    loaded library (3 ms), and a campaign limits its threads at each of its hundred fits and
    predictions. Made once scikit-learn's Gaussian processes are loaded, so that their
    libraries are among those found."""
    _gaussian_process()
    import threadpoolctl

    return threadpoolctl.ThreadpoolController()


def _gaussian_process() -> Any:
    """scikit-learn's Gaussian processes, loaded on first use (the CLI starts without them)."""
    import sklearn.gaussian_process

    return sklearn.gaussian_process
