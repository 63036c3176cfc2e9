"""The bootstrap interval of a ratio of medians over paired samples (core.stats.
median_ratio_interval): what the strategy benchmark states beside each strategy's median runs
over sim-screened's."""

from __future__ import annotations

import random
import statistics

import pytest
from iotwin.core.stats import median_ratio_interval


def test_a_sample_against_itself_is_one_whatever_the_resample() -> None:
    runs = [3.0, 9.0, 1.0, 40.0, 2.0, 6.0]
    assert median_ratio_interval(runs, runs) == (1.0, 1.0)


def test_a_constant_factor_between_the_pairs_is_the_whole_interval() -> None:
    base = [3.0, 9.0, 1.0, 40.0, 2.0, 6.0, 11.0]
    assert median_ratio_interval([2.5 * x for x in base], base) == pytest.approx((2.5, 2.5))


def test_the_interval_holds_the_ratio_of_medians_and_narrows_with_more_seeds() -> None:
    rng = random.Random(1)

    def draws(n: int, scale: float) -> list[float]:
        return [round(scale * rng.lognormvariate(0, 0.8)) + 1.0 for _ in range(n)]

    few = (draws(8, 20), draws(8, 5))
    many = (draws(200, 20), draws(200, 5))
    for first, second in (few, many):
        low, high = median_ratio_interval(first, second)
        assert low <= statistics.median(first) / statistics.median(second) <= high
    assert (median_ratio_interval(*many)[1] - median_ratio_interval(*many)[0]
            < median_ratio_interval(*few)[1] - median_ratio_interval(*few)[0])
    # four times as many needed: the interval stays above 1 with 200 seeds
    assert median_ratio_interval(*many)[0] > 1


def test_the_same_figures_give_the_same_interval() -> None:
    first, second = [5.0, 1.0, 22.0, 3.0, 8.0], [2.0, 2.0, 9.0, 1.0, 30.0]
    assert median_ratio_interval(first, second) == median_ratio_interval(first, second)


def test_unpaired_or_empty_samples_are_refused() -> None:
    with pytest.raises(ValueError, match="equally long"):
        median_ratio_interval([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="non-empty"):
        median_ratio_interval([], [])
