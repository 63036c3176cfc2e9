"""The local suite end to end on the simulator, with runs that the model itself produces."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.model import sim_memo
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.report.writing import write_report
from iotwin.store.database import Store
from iotwin.validation.local import (
    Suite,
    SuiteResult,
    predicted_rank,
    run_local_suite,
    top_measured,
)
from iotwin.workloads.workload import kernel_workload

# seed 2: six configs the model predicts apart (with seed 0 two independent, unfilled ones
# write the same merged requests and tie; a tie counts against the model's best-rank figure)
SUITE = Suite(samples=6, repetitions=2, folds=2, fit_evaluations=3,
              args=("--particles", "65536"), seed=2)


class ModelExecutor:
    """Runs whose rate is the uncalibrated local model's, 1 % higher on the second one: each
    config simulated once, its repetitions and confirmation rounds scaled from that."""

    source = "real"

    def __init__(self) -> None:
        self.platform = load_platform("local")
        self.workload = kernel_workload("vpic-io", 4, list(SUITE.args))
        self.rates: dict[str, float] = {}

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0
                 ) -> RunResult:
        key = config_hash(config)
        if key not in self.rates:
            rate = simulate(self.platform, self.workload, [config])[0].rate_mbs
            assert rate
            self.rates[key] = rate
        return RunResult("ok", total_s=1.0, rate_mbs=self.rates[key] * (1 + 0.01 * seed))


@dataclass
class Suites:
    """The suite run once, then again with the confirmation, on one store; its report."""

    plain: SuiteResult
    confirmed: SuiteResult
    csv: Path
    page: Path


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> Suites:
    """The second suite fits the same folds to the same medians as the first: its fits' iosim
    answers are the first's, read from a memo (iotwin.model.sim_memo), not simulated again."""
    folder = tmp_path_factory.mktemp("suite")
    executor = ModelExecutor()
    with sim_memo.memoised(folder / "answers.db"), Store(folder / "s.db") as store:
        plain = run_local_suite(store, SUITE, executor, progress=None)
        confirmed = run_local_suite(store, replace(SUITE, confirm_top=3, confirm_rounds=2),
                                    executor, progress=None)
        page, csv_path = write_report(store, confirmed.campaign_id, folder / "report")
    return Suites(plain, confirmed, csv_path, page)


def test_measurements_that_follow_the_model_give_perfect_uncalibrated_figures(
        suites: Suites) -> None:
    result = suites.plain
    assert result.uncalibrated is not None and result.metrics is not None
    assert result.uncalibrated.spearman == pytest.approx(1.0)
    assert result.uncalibrated.median_error == pytest.approx(0.005 / 1.005)  # median of 1, 1.01
    assert result.uncalibrated.best_predicted_rank == 1
    assert result.metrics.n == 6  # every config predicted by a fit on the other fold
    assert result.noise is not None and result.noise.configs == 6
    assert result.noise.median_spread == pytest.approx(0.01 / 1.005)
    assert result.noise.repeat_spearman == pytest.approx(1.0)
    assert {r.setting for r in result.residuals} >= {"dataset.transfer_mode=independent"}


def test_the_confirmation_reuses_the_suites_campaign_and_ranks_its_best(suites: Suites) -> None:
    plain, result = suites.plain, suites.confirmed
    with suites.csv.open() as csv_file:
        assert {row["repetitions"] for row in csv.DictReader(csv_file)} == {"2"}  # suite's only
    assert result.campaign_id == plain.campaign_id  # the stored runs are this suite's
    assert result.measured == plain.measured  # confirmation runs stay out of the medians
    confirmed = result.confirmation
    assert confirmed is not None and plain.confirmation is None
    assert confirmed.samples == top_measured(result.measured, 3)
    # the model's rates, 1 % up per seed: the top config stays the best, runs paired by round
    assert confirmed.best == confirmed.samples[0]
    assert (confirmed.rounds_won, confirmed.rounds_paired) == (2, 2)
    assert confirmed.best_predicted_rank == predicted_rank(result.predicted, confirmed.best)


def test_the_validation_page_reads_as_the_command_line_does(suites: Suites) -> None:
    result = suites.confirmed
    page = suites.page.read_text()
    assert result.confirmation is not None
    best = result.confirmation.best
    assert f"validate local {SUITE.target.label}</h1>" in page  # the ranks said once
    assert "Confirmation of the measured best" in page
    assert f"Confirmed best: config #{best + 1}" in page
    assert "The model&#x27;s bias by setting" in page and "-predicted)" in page
    # configs as their settings, not JSON; rates in MB/s as people read them
    assert "dataset.transfer_mode=independent" in page and '{&quot;' not in page
    assert f"{result.measured[best]:.1f}" in page
    assert "median |predicted / measured - 1|" in page and "%</td>" in page
