"""Median and spread of repeated measurements, as iotwin reports them everywhere.

Real runs on a shared machine are noisy: a figure is the median of R repetitions with its
range (min-max) and the relative spread (max - min) / median, never a single run or a mean.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    min: float
    max: float

    @property
    def spread(self) -> float:
        """(max - min) / median: 0.1 means the runs span 10% of the median."""
        return (self.max - self.min) / self.median if self.median else float("inf")

    def as_dict(self) -> dict[str, float]:
        return {**asdict(self), "spread": self.spread}

    def format(self, unit: str, precision: int = 3) -> str:
        """E.g. ``1.23 s (1.2-1.31, spread 8.9%, n=5)``."""
        p = precision
        return (f"{self.median:.{p}g} {unit} ({self.min:.{p}g}-{self.max:.{p}g}, "
                f"spread {100 * self.spread:.1f}%, n={self.n})")


def summarize(values: Iterable[float]) -> Summary:
    """Median, min and max of ``values``; ValueError if there are none."""
    data = sorted(values)
    if not data:
        raise ValueError("no values to summarize")
    return Summary(n=len(data), median=statistics.median(data), min=data[0], max=data[-1])


def format_mbs(value: float) -> str:
    """A rate in MB/s as people read it: one decimal from 10 MB/s up, three significant
    figures below (0.00626, not 0.0)."""
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"


def _scipy_stats() -> ModuleType:
    """scipy.stats, imported on first use: it takes longer to import than the rest of iotwin,
    and most commands test nothing."""
    import scipy.stats

    return scipy.stats


def spearman(first: Sequence[float], second: Sequence[float]) -> float:
    """Spearman's rank correlation of two equally long sequences (NaN where undefined)."""
    return float(_scipy_stats().spearmanr(first, second).statistic)


def row_spearman(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Spearman's correlation of each row of ``first`` with the same row of ``second`` (NaN
    where a row is constant): the bootstrap's resamples at once, where one scipy call each
    took most of a screened search's CPU."""
    import numpy as np

    a, b = row_ranks(first), row_ranks(second)
    a -= a.mean(axis=1, keepdims=True)
    b -= b.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip((a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1)),
                       -1.0, 1.0)


def row_ranks(values: np.ndarray) -> np.ndarray:
    """Each row's ranks from 1, ties given the mean of their ranks (scipy's ``rankdata``)."""
    import numpy as np

    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    rows, n = ordered.shape
    position = np.broadcast_to(np.arange(n), (rows, n))
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((rows, n), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, position, n)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((rows, n))
    np.put_along_axis(ranks, order, (first + last) / 2 + 1, axis=1)
    return ranks


def median_ratio_interval(numerators: Sequence[float], denominators: Sequence[float], *,
                          level: float = 0.95, resamples: int = 4000,
                          seed: int = 0) -> tuple[float, float]:
    """A percentile bootstrap interval of median(numerators) / median(denominators), the two
    paired by index (e.g. two strategies' runs on the same replay seeds): each resample draws
    indices with replacement and takes both medians over them. Seeded: the same figures give
    the same interval."""
    import numpy as np

    a, b = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError("median_ratio_interval needs two equally long, non-empty samples")
    draws = np.random.default_rng(seed).integers(0, a.size, size=(resamples, a.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.median(a[draws], axis=1) / np.median(b[draws], axis=1)
    tail = 100 * (1 - level) / 2
    low, high = np.nanpercentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def wilcoxon_p(differences: Sequence[float]) -> float:
    """The two-sided p-value of Wilcoxon's signed-rank test of paired differences."""
    return float(_scipy_stats().wilcoxon(differences).pvalue)


def below_p(runs: Sequence[float], others: Sequence[float]) -> float:
    """The p-value of Mann-Whitney's exact one-sided test that ``runs`` come from a
    distribution below ``others``' (three runs each, all of them below: 0.05)."""
    return float(_scipy_stats().mannwhitneyu(runs, others, alternative="less",
                                             method="exact").pvalue)


def friedman_p(*groups: Sequence[float]) -> float:
    """The p-value of Friedman's test that the groups' (blocked) values come from one
    distribution."""
    return float(_scipy_stats().friedmanchisquare(*groups).pvalue)


def paired_spearman(predicted: Sequence[float | None],
                     measured: Sequence[float | None]) -> float:
    """Spearman of predicted against measured rates over the pairs that have both."""
    pairs = [(p, m) for p, m in zip(predicted, measured, strict=True) if p and m]
    first, second = zip(*pairs, strict=True)
    return spearman(first, second)


def median_relative_error(predicted: Sequence[float | None],
                          measured: Sequence[float | None]) -> float | None:
    """Median |predicted / measured - 1| over the pairs that have both rates; None if none."""
    errors = [abs(p / m - 1) for p, m in zip(predicted, measured, strict=True) if p and m]
    return statistics.median(errors) if errors else None


# -- tuned / default with its interval --------------------------------------------------------
# Tuned / default speedup with an exact distribution-free confidence interval, on pairs.
#
# The default and the tuned config run in pairs, one of each per round, the order alternating
# from round to round (ABBA...), so that whatever drifts during a session (the machine's load,
# the page cache, a virtual machine's memory) hits both runs of a pair alike. The speedup is
# taken on the pairs: d_i = log(tuned_i) - log(default_i), in which a drift that scales both
# runs of a round cancels. Runs taken in blocks (all defaults, then all tuned) and compared as
# two independent samples charge such a drift to the config, in either direction.
#
# The interval is Wilcoxon's signed-rank interval for the centre of the d_i (Hollander & Wolfe,
# Nonparametric Statistical Methods, 3rd ed., section 3.3): the order statistics of the Walsh
# averages (d_i + d_j) / 2, i <= j, at the exact critical value of the signed-rank statistic.
# Its coverage is exact (>= the level asked) if the d_i are independent and symmetric about
# their centre, which holds when the two configs' runs carry noise of the same shape (the
# difference of two such noises is symmetric): the assumption of the two-sample interval it
# replaces, now without assuming the runs interchangeable in time. The sign test's interval
# would drop the symmetry too but needs more pairs for the same width; a bootstrap over 5-10
# pairs under-covers. The estimate is the Hodges-Lehmann pseudo-median (the median Walsh
# average). Under 6 pairs no interval reaches 95%: with 5, the widest one covers 93.75%.


@dataclass(frozen=True)
class Speedup:
    estimate: float  # Hodges-Lehmann: median of the Walsh averages of the pairs' log ratios
    low: float | None  # None: too few pairs for an interval at this level
    high: float | None
    confidence: float | None  # the exact coverage of [low, high], >= the level asked
    pairs: int  # pairs of successful runs it is computed on

    @property
    def significant(self) -> bool:
        return self.low is not None and self.high is not None and not self.low <= 1 <= self.high

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "significant": self.significant,
                "method": "paired, Wilcoxon signed-rank"}

    def text(self, first: str = "default", second: str = "tuned") -> str:
        """The speedup of ``second`` over ``first``, its interval and what they mean, in one
        line."""
        if self.low is None or self.high is None or self.confidence is None:
            return (f"speedup {self.estimate:.2f}x: too few pairs for a 95% interval "
                    f"({self.pairs}; {MIN_PAIRS_95} or more are needed)")
        verdict = ("significant" if self.significant
                   else "no significant difference: the interval includes 1")
        return (f"speedup {self.estimate:.2f}x (pseudo-median of the {self.pairs} pairs' "
                f"{second}/{first} ratios), 95% interval {self.low:.2f}-{self.high:.2f}x "
                f"(paired: each round's {first} and {second} runs side by side, the order "
                f"alternating, so drift cancels; exact, Wilcoxon signed-rank on the pairs' log "
                f"ratios, coverage {100 * self.confidence:.1f}%): {verdict}")


#: the fewest pairs that give an interval at 95%
MIN_PAIRS_95 = 6


@cache
def _signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many of the 2^n sign patterns of ranks 1..n give each signed-rank sum T+ (0..M)."""
    counts = [1]
    for rank in range(1, n + 1):  # with rank r or without it
        grown = counts + [0] * rank
        for total, count in enumerate(counts):
            grown[total + rank] += count
        counts = grown
    return tuple(counts)


def _signed_rank_critical(n: int, level: float) -> tuple[int, float] | None:
    """Largest k with P(T+ < k) <= (1 - level) / 2, and the interval's exact coverage."""
    counts, total = _signed_rank_counts(n), 2**n
    tail, k = 0, 0
    while k < len(counts) and (tail + counts[k]) / total <= (1 - level) / 2:
        tail += counts[k]
        k += 1
    if k == 0:
        return None
    return k, 1 - 2 * tail / total


def paired_speedup(default: Sequence[float | None], tuned: Sequence[float | None],
                   level: float = 0.95) -> Speedup | None:
    """Speedup of ``tuned`` over ``default`` (rates, higher is better; run i of each is a
    pair, None a failed run) with its paired interval; None without a pair of two rates."""
    pairs = [(d, t) for d, t in zip(default, tuned, strict=False) if d and t and d > 0 and t > 0]
    if not pairs:
        return None
    logs = [math.log(t) - math.log(d) for d, t in pairs]
    walsh = sorted((logs[i] + logs[j]) / 2 for i in range(len(logs))
                   for j in range(i, len(logs)))
    middle = len(walsh) // 2
    centre = walsh[middle] if len(walsh) % 2 else (walsh[middle - 1] + walsh[middle]) / 2
    critical = _signed_rank_critical(len(logs), level)
    if critical is None:
        return Speedup(math.exp(centre), None, None, None, len(pairs))
    k, coverage = critical
    return Speedup(math.exp(centre), math.exp(walsh[k - 1]), math.exp(walsh[-k]), coverage,
                   len(pairs))
