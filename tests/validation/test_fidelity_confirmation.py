"""The confirmation of the measured best: the top-k re-run in interleaved rounds, stored and
resumable, the best decided on the fresh runs only."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.validation.local import (
    Suite,
    confirm_runs,
    confirmation,
    load_suite,
    measure_configs,
    medians,
    predicted_rank,
    stratified_configs,
    top_measured,
)
from scipy.stats import wilcoxon


def test_the_top_measured_are_the_highest_rates_highest_first_failed_ones_left_out() -> None:
    assert top_measured([5.0, None, 9.0, 7.0, 1.0], 3) == [2, 3, 0]
    assert top_measured([None, 2.0], 5) == [1]


def test_the_best_is_the_highest_median_of_the_confirmation_runs() -> None:
    # config 4 was the suite's best (listed first); config 9 wins 3 of 4 rounds
    rounds = [{0: 200.0, 1: 210.0, 2: 190.0, 3: 250.0},
              {0: 220.0, 1: 230.0, 2: 200.0, 3: 240.0},
              {0: 100.0, 2: 110.0}]
    result = confirmation([4, 9, 2], rounds)
    assert result is not None
    assert (result.best, result.runner_up) == (9, 4)
    assert result.median(9) == pytest.approx(225.0)
    assert (result.rounds_won, result.rounds_paired) == (3, 4)
    assert result.p_value == pytest.approx(wilcoxon([20.0, 20.0, 10.0, -10.0]).pvalue)


def test_rounds_are_paired_only_where_both_configs_ran() -> None:
    result = confirmation([0, 1], [{0: 300.0, 1: 310.0, 2: 305.0}, {1: 200.0, 2: 220.0}])
    assert result is not None and result.best == 0
    assert (result.rounds_won, result.rounds_paired) == (2, 2)


def test_no_confirmation_without_two_configs_that_ran() -> None:
    assert confirmation([0, 1], [{0: 300.0}, {}]) is None


def test_the_predicted_rank_of_any_config_counts_ties_against_the_model() -> None:
    predicted = [100.0, None, 300.0, 200.0, 200.0]
    assert predicted_rank(predicted, 2) == 1
    assert predicted_rank(predicted, 3) == 3  # after config 4, its equal
    with pytest.raises(ValueError, match="config 2 has no prediction"):
        predicted_rank(predicted, 1)


class LoggingExecutor:
    """Rates that depend on the config and the seed; remembers the order of the runs."""

    source = "real"

    def __init__(self) -> None:
        self.order: list[str] = []

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0
                 ) -> RunResult:
        self.order.append(config_hash(config))
        return RunResult("ok", total_s=1.0, rate_mbs=100.0 + seed + len(str(config)))


def test_confirmation_rounds_are_interleaved_rotated_stored_and_resumed(tmp_path: Path) -> None:
    suite = Suite(repetitions=2, confirm_top=3, confirm_rounds=2)
    configs = stratified_configs(load_space("local").bind(SpaceContext("ufs", 4)), 6,
                                 random.Random(2))
    executor = LoggingExecutor()
    with Store(tmp_path / "s.db") as store:
        campaign = store.create_campaign("v", kind="validation", spec=suite.to_json())
        measured = medians(measure_configs(store, campaign, suite, executor, configs, None))
        samples = top_measured(measured, suite.confirm_top)
        hashes = [config_hash(configs[i]) for i in samples]
        executor.order.clear()
        rates = confirm_runs(store, campaign, suite, executor, configs, samples, None)
        assert executor.order == [*hashes, *hashes[1:], hashes[0]]  # round 2 starts one on
        assert rates[0] == {r: 100.0 + suite.repetitions + r + len(str(configs[samples[0]]))
                            for r in range(2)}  # seeds after the suite's repetitions
        # stored: the suite's own repetitions ignore them, a second confirmation reuses them
        again = measure_configs(store, campaign, suite, executor, configs, None)
        assert medians(again) == measured
        assert confirm_runs(store, campaign, suite, executor, configs, samples, None) == rates
        assert len(executor.order) == 6  # nothing ran again
        longer = Suite(repetitions=2, confirm_top=3, confirm_rounds=3)
        confirm_runs(store, campaign, longer, executor, configs, samples, None)
        assert len(executor.order) == 9  # only the new round


@pytest.mark.parametrize(("text", "message"), [
    ("confirm_rounds: -1\n", "confirm_rounds: expected an integer from 0 to 16777216, got -1"),
    ("confirm_rounds: 4\nconfirm_top: 1\n", "confirm_top: expected 2 to samples"),
    ("samples: 4\nconfirm_rounds: 4\nconfirm_top: 5\n", "confirm_top: expected 2 to samples"),
    ("warm_up: -1\n", "warm_up: -1 is not a size: negative"),
    ("warm_up: lots\n", "warm_up: 'lots' is not a size"),
])
def test_bad_suite_settings_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        load_suite(path)
