"""What sim-screened tells of itself after each real batch: how far it trusts the simulator, and
how close its best measured config is to the user's target.

The prior's weight is the grey-box surrogate's (iotwin.search.surrogate): the posterior
probability, from the runs' evidence, that the simulator is the mean of the machine's log
rates. The reason given with it is the order the calibrated simulator gives the measured
configs against their measured means, Spearman's rank correlation with a bootstrap interval
over the configs (what a user can check: a negative interval is a model that ranks the machine
backwards).

The target is the user's: within ``target`` of the best, with ``confidence``. The chance that it
is not met is the beliefs' probability that some config (a candidate, or another measured one)
beats the best measured by more than ``target``: the share of joint draws from the beliefs in
which one does (configs that share settings share their doubt).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iotwin.core.stats import row_spearman, spearman

#: why a campaign ended (None: it has not)
ENDINGS = {"target": "target reached", "budget": "budget ended before the target was reached",
           "space": "no unmeasured config left"}


@dataclass(frozen=True)
class Order:
    """How the calibrated simulator orders the measured configs' means."""

    spearman: float
    low: float  # of the bootstrap interval (``level``)
    high: float
    configs: int
    level: float = 0.9


@dataclass(frozen=True)
class SearchState:
    prior_weight: float  # 1: the simulator leads; 0: the same surrogate without it
    log_bayes_factor: float | None  # evidence of the simulator as the mean over a constant
    order: Order | None  # None: fewer than 3 measured configs, or no spread to rank
    target: float  # the user's: within this fraction of the best ...
    confidence: float  # ... with this probability
    chance_missed: float | None  # that some config beats the best measured by > target
    ended: str | None = None  # a key of ENDINGS
    transferred: int = 0  # earlier campaigns' measured configs its prior learnt from
    #: the runs of the best measured config, and those that give its rate within target at
    #: confidence at the campaign's noise (iotwin.search.noise.Noise.runs_to_know)
    best_runs: tuple[int, int] = (0, 0)
    run_spread: float | None = None  # one run's log rate: its standard deviation (the noise)

    def text(self) -> str:
        """One line: the prior's weight and why, and the target."""
        why = (f"{self.order.configs} measured configs ordered by the calibrated model with "
               f"Spearman {self.order.spearman:+.2f} ({100 * self.order.level:.0f}% interval "
               f"{self.order.low:+.2f} to {self.order.high:+.2f})" if self.order else
               "too few measured configs to rank")
        evidence = ("" if self.log_bayes_factor is None else
                    f", evidence for it {self.log_bayes_factor:+.1f} log units")
        ended = f"; {ENDINGS[self.ended]}{self.shortfall()}" if self.ended else ""
        prior = (f"the model with the residuals of {self.transferred} configs earlier "
                 f"campaigns on the platform measured; " if self.transferred else "")
        return (f"prior weight {self.prior_weight:.2f} ({prior}{why}{evidence}); target "
                f"{self.target_text()}{ended}")

    def shortfall(self) -> str:
        """Where the budget ended before the best config's own runs could give its rate to
        the target, why: what the machine's noise asks of a target this tight."""
        runs, needed = self.best_runs
        if self.ended != "budget" or self.run_spread is None or runs >= needed:
            return ""
        return (f"; a run spreads {100 * self.run_spread:.0f}% here, so the best config's rate "
                f"is known within {100 * self.target:g}% only after {needed:,} runs of it (it "
                f"had {runs})")

    def target_text(self) -> str:
        """The user's target, and the chance (by the beliefs) that it is missed."""
        goal = f"within {100 * self.target:g}% of the best at {100 * self.confidence:g}%"
        return goal + ("" if self.chance_missed is None else
                       f": chance it is missed {100 * min(self.chance_missed, 1.0):.0f}%")


def measured_order(predicted: Sequence[float], measured: Sequence[float], *, seed: int = 0,
                   resamples: int = 200, level: float = 0.9) -> Order | None:
    """Spearman of ``predicted`` against ``measured`` (log rates of the same configs), with a
    percentile bootstrap interval over the configs."""
    if len(predicted) < 3 or len(set(predicted)) < 2 or len(set(measured)) < 2:
        return None
    rng = random.Random(seed)
    draws = np.array([[rng.randrange(len(predicted)) for _ in predicted]
                      for _ in range(resamples)])
    values = row_spearman(np.asarray(predicted, dtype=float)[draws],
                          np.asarray(measured, dtype=float)[draws])
    values = values[~np.isnan(values)]  # a resample of one config's copies: no order, skipped
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail]) if len(values) else (np.nan, np.nan)
    return Order(spearman(predicted, measured), float(low), float(high), len(predicted), level)
