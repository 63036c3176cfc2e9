"""The run-to-run noise of the machine a campaign runs on, from the campaign's own repeated runs.

A config run n times tells n - 1 degrees of freedom about the noise: the spread of its runs'
log rates around their mean. The noise is taken to be one log-normal spread for every config
(on a shared machine the load, not the config, moves a run), pooled over configs, with a
prior of ``weight`` pseudo-degrees of freedom at ``prior_sd`` (the conjugate scaled inverse-
chi-squared prior of a normal variance: Gelman et al., Bayesian Data Analysis, 3rd ed., 2.6
and 3.3)::

    variance = (weight * prior_sd^2 + sum over configs, runs of (log rate - config's mean)^2)
               / (weight + sum over configs of (n - 1))

Before any repeat the prior alone speaks; every repeat moves the estimate toward the spread
the machine shows.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Noise:
    variance: float  # of one run's log rate
    dof: int  # degrees of freedom the runs gave (the prior's not counted)

    @property
    def sd(self) -> float:
        """Standard deviation of one run's log rate (0.1: about 10% from run to run)."""
        return math.sqrt(self.variance)

    def of_mean(self, runs: int) -> float:
        """Variance of the mean log rate of ``runs`` runs."""
        return self.variance / max(runs, 1)

    def runs_to_know(self, fraction: float, confidence: float) -> int:
        """The runs of one config whose mean gives its rate within ``fraction`` with
        ``confidence``: z * sd / sqrt(runs) <= log(1 + fraction), z one-sided."""
        z = statistics.NormalDist().inv_cdf(confidence)
        if z <= 0:  # a confidence of 50% or less: one run's rate is as good a guess as any
            return 1
        return max(1, math.ceil((z * self.sd / math.log1p(fraction)) ** 2))


def estimate(runs_by_config: Iterable[Sequence[float]], prior_sd: float,
             weight: float) -> Noise:
    """The noise from each config's rates (MB/s, > 0; a config run once tells nothing)."""
    squares, dof = 0.0, 0
    for rates in runs_by_config:
        if len(rates) < 2:
            continue
        logs = [math.log(rate) for rate in rates]
        mean = sum(logs) / len(logs)
        squares += sum((x - mean) ** 2 for x in logs)
        dof += len(logs) - 1
    if weight + dof <= 0:
        raise ValueError("a noise estimate needs a prior weight > 0 or a repeated config")
    return Noise((weight * prior_sd ** 2 + squares) / (weight + dof), dof)
