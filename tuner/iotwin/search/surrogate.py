"""sim-screened's grey-box surrogate: the simulator's prediction times a learned residual.

    log rate(x) = log simulated(x) + residual(x) + noise,    residual ~ GP(0, k)

The simulator, calibrated to the campaign's runs (iotwin.tuning.recalibration), is the prior
mean; the residual is what it cannot represent, learned from the same runs: a Gaussian process
over the config's settings, each searched gene one-hot encoded (a column per value and one
for "inactive"), with the kernel

    k(x, x') = level^2                                    a bias the calibration left
             + effect^2 * onehot(x) . onehot(x')          one factor per setting's value
             + interaction^2 * exp(-|x - x'|^2 / 2 l^2)   configs alike in most settings

whose amplitudes and length l are fitted by marginal likelihood within bounds, from the same
start each time (deterministic given the runs). The noise is not fitted: a config's mean log
rate over its n runs carries the noise model's variance / n (iotwin.search.noise). The
mechanisms tie configs that differ only in settings they give no cost; the effect term learns
such a setting's factor from every run that has it, which no platform parameter carries.

This is Kennedy and O'Hagan's calibration with a model-discrepancy term ("Bayesian calibration
of computer models", JRSS B 63, 2001), fitted in the modular way (Liu, Bayarri and Berger,
Bayesian Analysis 4, 2009): the platform's parameters first, then the discrepancy given them.
In multi-fidelity terms the simulator is the cheap fidelity and the residual the correction
to the expensive one (Kennedy and O'Hagan, Biometrika 87, 2000); as with piBO's prior over the
optimum (Hvarfner et al., ICLR 2022) the simulator's say fades where runs accumulate, here
because the posterior follows the runs where they are and the simulator where they are not.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from iotwin.search.noise import Noise
from iotwin.space.parameters import BoundSpace, Point

_LENGTH_BOUNDS = (0.5, 20.0)  # of the interaction term, in one-hot distance (sqrt(2) per gene)


class GreyBox:
    """Beliefs about configs' log rates: the simulator's where nothing was run, the runs'
    where they were, a Gaussian process between them."""

    def __init__(self, space: BoundSpace, settings: Mapping[str, Any]) -> None:
        self.space = space
        self._start = float(settings["residual_sd"])
        self._largest = float(settings["residual_max_sd"])
        self._fitted: Any = None  # sklearn's GaussianProcessRegressor, once fitted
        self._kernel = self._initial_kernel()

    def fit(self, points: Sequence[Point], simulated: Sequence[float],
            runs: Sequence[Sequence[float]], noise: Noise) -> None:
        """Learn the residual from each measured point's runs (rates > 0) against its
        simulated rate."""
        if not points:
            self._fitted = None
            return
        residuals = [float(np.mean(np.log(rates))) - math.log(sim)
                     for rates, sim in zip(runs, simulated, strict=True)]
        process = _gaussian_process().GaussianProcessRegressor(
            self._initial_kernel(), alpha=np.array([noise.of_mean(len(r)) for r in runs]),
            optimizer="fmin_l_bfgs_b", n_restarts_optimizer=0, normalize_y=False)
        with warnings.catch_warnings(), _one_thread():
            warnings.simplefilter("ignore")  # an amplitude at its bound: the fit says so
            process.fit(self.encode(points), np.array(residuals))
        self._fitted = process

    def beliefs(self, points: Sequence[Point], simulated: Sequence[float]
                ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and covariance of the points' log rates (true rates: no run's noise)."""
        features = self.encode(points)
        prior = np.log(np.asarray(simulated, dtype=float))
        if self._fitted is None:
            return prior, self._kernel(features)
        with _one_thread():
            mean, cov = self._fitted.predict(features, return_cov=True)
        return prior + mean, cov

    def marginals(self, points: Sequence[Point], simulated: Sequence[float]
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of each point's log rate."""
        features = self.encode(points)
        prior = np.log(np.asarray(simulated, dtype=float))
        if self._fitted is None:
            return prior, np.sqrt(self._kernel.diag(features))
        with _one_thread():
            mean, sd = self._fitted.predict(features, return_std=True)
        return prior + mean, sd

    def encode(self, points: Sequence[Point]) -> np.ndarray:
        """One-hot columns for each searched gene: one per value and one for "inactive", so
        that every config has as many ones and the same prior variance."""
        rows = []
        for point in points:
            values = self.space.values(point)
            row: list[float] = []
            for gene, index in zip(self.space.genes, point, strict=True):
                if len(gene.values) < 2:
                    continue
                hot = [0.0] * (len(gene.values) + 1)
                hot[index if self.space.is_active(gene, values) else -1] = 1.0
                row += hot
            rows.append(row)
        return np.array(rows, dtype=float).reshape(len(points), -1)

    def _initial_kernel(self) -> Any:
        kernels = _gaussian_process().kernels
        variance = self._start ** 2
        bounds = (1e-6, self._largest ** 2)
        return (kernels.ConstantKernel(variance, bounds)
                + kernels.ConstantKernel(variance, bounds) * kernels.DotProduct(0.0, "fixed")
                + kernels.ConstantKernel(variance, bounds) * kernels.RBF(2.0, _LENGTH_BOUNDS))


def _one_thread() -> Any:
    """BLAS on one thread: the surrogate's matrices are as small as a campaign's runs, and
    OpenBLAS's threads only wait for one another (on 2 cores a fit took 18x the CPU time).
    threadpoolctl (scikit-learn's own dependency) is loaded on first use, as scikit-learn."""
    import threadpoolctl

    return threadpoolctl.threadpool_limits(1)


def _gaussian_process() -> Any:
    """scikit-learn's Gaussian processes, loaded on first use (the CLI starts without them)."""
    import sklearn.gaussian_process

    return sklearn.gaussian_process
