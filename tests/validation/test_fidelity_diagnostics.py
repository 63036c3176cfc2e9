"""The suite's diagnostics: the noise floor of the measurements and the residuals by setting."""

from __future__ import annotations

import random

import numpy as np
import pytest
from iotwin.validation.local import flat_settings, noise_floor, residuals_by_setting


def test_identical_repetitions_have_no_spread_and_rank_alike() -> None:
    rates = [[float(v)] * 3 for v in (10, 20, 40, 80, 160)]
    floor = noise_floor(rates)
    assert floor is not None
    assert floor.configs == 5 and floor.median_spread == 0.0 and floor.p90_spread == 0.0
    assert floor.repeat_spearman == pytest.approx(1.0)
    assert floor.between_configs == pytest.approx(
        np.percentile([10, 20, 40, 80, 160], 90) / np.percentile([10, 20, 40, 80, 160], 10))


def test_noise_larger_than_the_differences_scrambles_the_repeat_ranking() -> None:
    rng = random.Random(2)
    quiet = [[100.0 + i, 100.0 + i] for i in range(30)]
    noisy = [[(100.0 + i) * rng.uniform(0.3, 3.0) for _ in range(2)] for i in range(30)]
    assert noise_floor(quiet).repeat_spearman == pytest.approx(1.0)  # type: ignore[union-attr]
    floor = noise_floor(noisy)
    assert floor is not None and floor.repeat_spearman < 0.6 and floor.median_spread > 0.3


def test_spread_is_range_over_median_and_single_runs_are_left_out() -> None:
    floor = noise_floor([[90.0, 100.0, 110.0], [50.0, 100.0], [200.0, 200.0], [7.0]])
    assert floor is not None and floor.configs == 3
    assert floor.median_spread == pytest.approx(np.median([0.2, 50 / 75, 0.0]))
    assert noise_floor([[1.0, 2.0], [3.0]]) is None


def test_settings_are_flattened_with_sizes_in_units() -> None:
    config = {"dataset": {"chunk_size": 4 * 2**20, "fill_time": "never"},
              "hdf5": {"alignment": {"threshold": 0, "boundary": 65536},
                       "coll_metadata_write": True}}
    assert flat_settings(config) == [
        "dataset.chunk_size=4MiB", "dataset.fill_time=never",
        "hdf5.alignment.boundary=64KiB", "hdf5.alignment.threshold=0",
        "hdf5.coll_metadata_write=True"]


def test_the_setting_the_model_misses_has_the_largest_residual() -> None:
    configs, predicted, measured = [], [], []
    for i in range(24):  # both settings crossed, each value in half the configs
        config = {"dataset": {"fill_time": ["ifset", "never"][i % 2],
                              "chunk_size": [2**22, 2**24][i // 2 % 2]}}
        real = 100.0 + i
        configs.append(config)
        measured.append(real / 3 if config["dataset"]["fill_time"] == "ifset" else real)
        predicted.append(real)  # a model blind to fill_time
    residuals = residuals_by_setting(configs, predicted, measured)
    assert residuals[0].setting == "dataset.fill_time=ifset"
    assert residuals[0].median_log_ratio == pytest.approx(np.log(3))
    never = next(r for r in residuals if r.setting == "dataset.fill_time=never")
    assert never.median_log_ratio == pytest.approx(0.0)
    assert sum(r.configs for r in residuals if r.setting.startswith("dataset.fill_time")) == 24


def test_configs_without_both_figures_count_nowhere() -> None:
    configs = [{"mpiio": {"cb_nodes": 2}}, {"mpiio": {"cb_nodes": 2}}, {"mpiio": {"cb_nodes": 2}}]
    residuals = residuals_by_setting(configs, [200.0, None, 100.0], [100.0, 50.0, None])
    assert [(r.setting, r.configs) for r in residuals] == [("mpiio.cb_nodes=2", 1)]
    assert residuals[0].median_log_ratio == pytest.approx(np.log(2))
