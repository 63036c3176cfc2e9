"""The speedup on pairs of runs and its exact signed-rank interval (core.stats.paired_speedup),
checked against scipy's exact Wilcoxon test: the interval is the set of speedups the test does
not reject."""

from __future__ import annotations

import math
import random

import pytest
import scipy.stats
from iotwin.core.stats import MIN_PAIRS_95, _signed_rank_counts, paired_speedup


def test_the_signed_rank_null_counts_every_sign_pattern_once() -> None:
    # subsets of {1, 2, 3}: sums 0, 1, 2, 3, 3, 4, 5, 6
    assert _signed_rank_counts(3) == (1, 1, 1, 2, 1, 1, 1)
    assert sum(_signed_rank_counts(12)) == 2**12


def test_five_pairs_give_no_95_interval_and_six_the_widest_one() -> None:
    default = [100.0, 104.0, 98.0, 101.0, 97.0, 103.0]
    tuned = [150.0, 149.0, 160.0, 144.0, 152.0, 155.0]
    five = paired_speedup(default[:5], tuned[:5])
    assert five is not None and five.low is None and five.pairs == 5
    six = paired_speedup(default, tuned)
    assert six is not None and MIN_PAIRS_95 == 6
    ratios = [t / d for d, t in zip(default, tuned, strict=True)]
    assert (six.low, six.high) == pytest.approx((min(ratios), max(ratios)))
    assert six.confidence == pytest.approx(1 - 2 / 64)
    assert six.significant


def test_failed_runs_drop_their_pair() -> None:
    found = paired_speedup([100.0, None, 100.0], [200.0, 300.0, None])
    assert found is not None and found.pairs == 1 and found.estimate == pytest.approx(2.0)
    assert paired_speedup([None], [100.0]) is None


@pytest.mark.parametrize("seed", range(5))
def test_the_interval_holds_the_speedups_the_exact_test_does_not_reject(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(6, 12)
    default = [rng.uniform(80, 120) for _ in range(n)]
    tuned = [d * 1.3 * math.exp(rng.gauss(0, 0.1)) for d in default]
    found = paired_speedup(default, tuned)
    assert found is not None and found.low is not None and found.high is not None
    logs = [math.log(t / d) for d, t in zip(default, tuned, strict=True)]

    def p_value(speedup: float) -> float:
        shifted = [x - math.log(speedup) for x in logs]
        return float(scipy.stats.wilcoxon(shifted, method="exact").pvalue)

    inside = math.sqrt(found.low * found.high)
    assert p_value(inside) > 0.05
    for edge, outward in ((found.low, 0.999), (found.high, 1.001)):
        assert p_value(edge * outward) <= 0.05   # just outside: rejected
        assert p_value(edge / outward) > 0.05    # just inside: not rejected
