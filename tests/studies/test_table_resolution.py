"""How finely a measured table tells configs apart: exact repetitions resolve every config,
repetitions that are pure noise resolve none."""

from __future__ import annotations

import warnings

import numpy as np
from iotwin.executors.table import Landscape
from iotwin.studies.table_resolution import resolution


def _table(rates: np.ndarray) -> Landscape:
    configs = [{"mpiio.cb_nodes": i} for i in range(len(rates))]
    return Landscape("synthetic", configs, rates.tolist())


def test_exact_repetitions_keep_the_optimum_in_every_resample() -> None:
    levels = np.linspace(100.0, 120.0, 30)  # all within 20% of the best
    found = resolution(_table(np.repeat(levels[:, None], 6, axis=1)), resamples=200)
    assert found.optimum_kept == 1.0 and found.contenders == 1
    assert found.median_se < 1e-9
    assert found.near_best == 30 and found.agreement is not None and found.agreement > 0.99


def test_pure_noise_crowns_many_configs_and_orders_none() -> None:
    noise = np.random.default_rng(1).lognormal(mean=5.0, sigma=0.3, size=(40, 6))
    found = resolution(_table(noise), resamples=300)
    assert found.optimum_kept < 0.5 and found.contenders >= 5
    assert 0.05 < found.median_se < 0.3
    assert found.agreement is not None and abs(found.agreement) < 0.3


def test_real_differences_under_noise_are_ordered_between_halves() -> None:
    rng = np.random.default_rng(2)
    levels = np.linspace(80.0, 100.0, 30)[:, None]
    found = resolution(_table(levels * rng.lognormal(0.0, 0.02, size=(30, 6))), resamples=200)
    assert found.agreement is not None and found.agreement > 0.8


def test_too_few_near_best_configs_leave_the_agreement_open() -> None:
    rates = np.array([[100.0] * 5, [50.0] * 5, [40.0] * 5])
    assert resolution(_table(rates)).agreement is None


def test_unequal_repeats_resample_each_config_among_its_own_runs() -> None:
    # an imported table: most configs run twice, a few six times; the cells they lack are empty
    noise = np.random.default_rng(3).lognormal(mean=5.0, sigma=0.3, size=(40, 6)).tolist()
    rows = [row[:2] + [None] * 4 if i < 34 else row for i, row in enumerate(noise)]
    table = Landscape("imported", [{"mpiio.cb_nodes": i} for i in range(40)], rows)
    found = resolution(table, resamples=300)
    # a median of two runs spreads about as much as its runs do (the old resampling drew
    # empty cells and reported 0%)
    assert 0.05 < found.median_se < 0.4
    assert found.contenders >= 5


def test_unequal_repeats_are_halved_among_each_configs_own_runs() -> None:
    # real differences, each config run 2 to 6 times: every half of every config has a run
    rng = np.random.default_rng(4)
    levels = np.linspace(80.0, 100.0, 30)[:, None] * rng.lognormal(0.0, 0.02, size=(30, 6))
    rows = [row[:2 + i % 5] + [None] * (4 - i % 5) for i, row in enumerate(levels.tolist())]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no all-empty half (numpy's "All-NaN slice")
        found = resolution(Landscape("imported", [{"mpiio.cb_nodes": i} for i in range(30)],
                                     rows), resamples=200)
    assert found.agreement is not None and found.agreement > 0.8
