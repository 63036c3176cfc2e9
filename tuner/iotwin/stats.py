"""Median and spread of repeated measurements, as iotwin reports them everywhere.

Real runs on a shared machine are noisy: a figure is the median of R repetitions with its
range (min-max) and the relative spread (max - min) / median, never a single run or a mean.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass


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


def ratio_of_medians(numerator: Summary, denominator: Summary) -> float:
    return numerator.median / denominator.median


def median_relative_error(predicted: Sequence[float | None],
                          measured: Sequence[float | None]) -> float | None:
    """Median |predicted / measured - 1| over the pairs that have both rates; None if none."""
    errors = [abs(p / m - 1) for p, m in zip(predicted, measured, strict=True) if p and m]
    return statistics.median(errors) if errors else None
