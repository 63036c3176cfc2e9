"""Fidelity metrics on synthetic data; the stratified sample; resuming the measurements."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from iotwin.core.errors import UserError
from iotwin.core.run_records import RunResult, Target
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.validation.local import (
    Suite,
    load_suite,
    measure_configs,
    medians,
    metrics,
    predicted_rank_of_best,
    stratified_configs,
)


def pearson_of_ranks(a: list[float], b: list[float]) -> float:
    ranks_a, ranks_b = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ranks_a, ranks_b)[0, 1])


def test_spearman_is_the_correlation_of_ranks() -> None:
    rng = random.Random(3)
    measured = [rng.uniform(10, 1000) for _ in range(40)]
    predicted = [m * rng.uniform(0.5, 2.0) for m in measured]
    assert metrics(predicted, measured).spearman == pytest.approx(
        pearson_of_ranks(predicted, measured))
    assert metrics([m**2 for m in measured], measured).spearman == pytest.approx(1.0)
    assert metrics([1 / m for m in measured], measured).spearman == pytest.approx(-1.0)


def test_error_percentiles_are_those_of_the_relative_errors() -> None:
    rng = random.Random(5)
    errors = [rng.uniform(0, 0.8) for _ in range(31)]
    measured = [rng.uniform(50, 500) for _ in errors]
    predicted = [m * (1 + e) for m, e in zip(measured, errors, strict=True)]
    result = metrics(predicted, measured)
    assert result.median_error == pytest.approx(sorted(errors)[15])
    assert result.p90_error == pytest.approx(float(np.percentile(errors, 90)))
    assert result.n == 31


@pytest.mark.parametrize("rank", [1, 4, 5, 6, 9])
def test_the_measured_best_is_in_the_top_5_only_at_rank_5_or_better(rank: int) -> None:
    measured = [float(v) for v in range(1, 11)]  # config 9 is the measured best
    others = [i for i in range(10) if i != 9]
    order = [*others[:rank - 1], 9, *others[rank - 1:]]  # predicted order, best first
    predicted = [0.0] * 10
    for position, config in enumerate(order):
        predicted[config] = 100.0 - position
    assert predicted_rank_of_best(predicted, measured) == rank
    assert metrics(predicted, measured).best_in_top5 == (rank <= 5)


def test_predicted_ties_with_the_best_count_against_the_model() -> None:
    measured = [1.0, 2.0, 3.0, 4.0]
    assert predicted_rank_of_best([5.0, 5.0, 5.0, 5.0], measured) == 4


def test_metrics_refuse_too_few_pairs() -> None:
    with pytest.raises(ValueError, match=">= 3"):
        metrics([1.0, 2.0], [1.0, 2.0])


def local_space():
    return load_space("local").bind(SpaceContext("ufs", 4))


def test_the_stratified_sample_is_distinct_starts_with_the_default_and_covers_values() -> None:
    configs = stratified_configs(local_space(), 40, random.Random(0))
    assert len(configs) == 40 and configs[0] == {}
    assert len({repr(sorted(c.items())) for c in configs}) == 40
    modes = Counter(c.get("dataset", {}).get("transfer_mode") for c in configs[1:])
    assert min(modes["collective"], modes["independent"]) >= 12  # about half each
    chunks = Counter(c.get("dataset", {}).get("chunk_size") for c in configs[1:])
    assert len(chunks) == 4 and min(chunks.values()) >= 6  # 4 values, ~10 each


class CountingExecutor:
    source = "real"

    def __init__(self) -> None:
        self.runs = 0

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0
                 ) -> RunResult:
        self.runs += 1
        return RunResult("ok", total_s=1.0, rate_mbs=100.0 + 10 * seed + len(str(config)))


def test_measurements_resume_from_the_store(tmp_path: Path) -> None:
    suite = Suite(repetitions=3)
    configs = stratified_configs(local_space(), 5, random.Random(1))
    executor = CountingExecutor()
    with Store(tmp_path / "s.db") as store:
        campaign = store.create_campaign("v", kind="validation", spec=suite.to_json())
        first = measure_configs(store, campaign, suite, executor, configs[:3], None)
        assert executor.runs == 9
        again = measure_configs(store, campaign, suite, executor, configs, None)
        assert executor.runs == 9 + 2 * 3  # only the two new configs ran
        assert again[:3] == first
        assert again[0] == [100.0 + 10 * seed + len(str(configs[0])) for seed in range(3)]
        assert medians(again)[0] == 100.0 + 10 + len(str(configs[0]))  # median of seeds 0-2


def test_a_suite_file_with_an_unknown_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("samples: 10\nrepetition: 3\n")
    with pytest.raises(UserError, match=r"suite\.yaml:\d+: repetition: unknown key"):
        load_suite(path)
    path.write_text("samples: 2\n")
    with pytest.raises(UserError, match=r"suite\.yaml:1: samples: expected an integer from 3 to "
                                        r"100000, got 2"):
        load_suite(path)
