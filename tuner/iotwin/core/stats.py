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


def wilcoxon_p(differences: Sequence[float]) -> float:
    """The two-sided p-value of Wilcoxon's signed-rank test of paired differences."""
    return float(_scipy_stats().wilcoxon(differences).pvalue)


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
# Tuned / default speedup with an exact distribution-free confidence interval.
#
# Rates of repeated runs are skewed and few (5 each), so the interval is Moses' exact interval
# for a shift, applied to log rates (a ratio of rates is a shift of their logs): the order
# statistics of the n*m pairwise differences log(tuned_i) - log(default_j) at the Mann-Whitney
# critical value. Its coverage is exact (>= the level asked) under the assumption that the two
# distributions differ by a factor, with no assumption of their shape; a bootstrap of medians
# from 5 runs each under-covers. The point estimate is the Hodges-Lehmann estimate (the median
# pairwise ratio); the ratio of medians is reported beside it as before.


@dataclass(frozen=True)
class Speedup:
    estimate: float  # Hodges-Lehmann: median of the pairwise ratios tuned_i / default_j
    low: float | None  # None: too few runs for an interval at this level
    high: float | None
    confidence: float | None  # the exact coverage of [low, high], >= the level asked

    @property
    def significant(self) -> bool:
        return self.low is not None and self.high is not None and not self.low <= 1 <= self.high


@cache
def _u_counts(n: int, m: int) -> tuple[int, ...]:
    """How many of the C(n+m, n) rankings give each value of the Mann-Whitney U (0..n*m)."""
    # f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u): the largest value is from one sample or the other
    if n == 0 or m == 0:
        return (1,)
    shorter, fewer = _u_counts(n - 1, m), _u_counts(n, m - 1)
    counts = [0] * (n * m + 1)
    for u, c in enumerate(shorter):
        counts[u + m] += c
    for u, c in enumerate(fewer):
        counts[u] += c
    return tuple(counts)


def _critical_rank(n: int, m: int, level: float) -> tuple[int, float] | None:
    """Largest k with P(U < k) <= (1 - level) / 2, and the interval's exact coverage."""
    counts = _u_counts(n, m)
    total = math.comb(n + m, n)
    tail, k = 0, 0
    while k < len(counts) and (tail + counts[k]) / total <= (1 - level) / 2:
        tail += counts[k]
        k += 1
    if k == 0:
        return None
    return k, 1 - 2 * tail / total


def speedup_interval(default: Sequence[float], tuned: Sequence[float],
                     level: float = 0.95) -> Speedup:
    """Speedup of ``tuned`` over ``default`` (rates, higher is better) with its interval."""
    if not default or not tuned or min(*default, *tuned) <= 0:
        raise ValueError("speedup_interval needs positive rates on both sides")
    diffs = sorted(math.log(t) - math.log(d) for t in tuned for d in default)
    middle = len(diffs) // 2
    hl = diffs[middle] if len(diffs) % 2 else (diffs[middle - 1] + diffs[middle]) / 2
    critical = _critical_rank(len(tuned), len(default), level)
    if critical is None:
        return Speedup(math.exp(hl), None, None, None)
    k, coverage = critical
    return Speedup(math.exp(hl), math.exp(diffs[k - 1]), math.exp(diffs[-k]), coverage)
