"""The configs a model predicts alike, and whether the measured table tells them apart."""

from __future__ import annotations

import numpy as np
import pytest
from iotwin.executors.table import Landscape
from iotwin.studies.model_ties import spearman_within, ties, ties_text


def _table(rates: np.ndarray) -> Landscape:
    configs = [{"mpiio.cb_nodes": i} for i in range(len(rates))]
    return Landscape("synthetic", configs, rates.tolist())


def test_a_tie_the_table_shares_is_inside_the_noise_and_unranked_by_the_passes() -> None:
    # four configs whose passes are shifts of one another: one true rate, each pass ranks
    # them differently; a fifth config far below, predicted below them
    shifts = np.array([np.roll([90.0, 95.0, 100.0, 105.0], k) for k in range(4)])
    rates = np.vstack([shifts, [[40.0] * 4]])
    found = ties(_table(rates), [200.0, 199.0, 198.5, 200.0, 50.0])
    assert found.tied == 4 and found.optimum_tied
    assert found.spread == (1.0, 1.0)
    assert found.null[0] < 1.0  # noise alone spreads them, this table does not
    assert found.friedman_p is not None and found.friedman_p > 0.9


def test_a_tie_over_configs_every_pass_orders_alike_is_the_models_error() -> None:
    levels = np.array([60.0, 80.0, 100.0, 70.0])[:, None]
    wobble = np.array([0.99, 1.0, 1.01, 1.0, 0.995])[None, :]
    found = ties(_table(levels * wobble), [300.0, 300.0, 300.0, 100.0])
    assert found.tied == 3 and found.optimum_tied and found.optimum_place == 3
    assert found.spread == (0.6, 1.0)
    assert found.null[0] > 0.9  # a 1% wobble cannot make 60 of 100
    assert found.friedman_p is not None and found.friedman_p < 0.05
    assert "3 configs predicted within 1% of its best" in ties_text(found)


def test_an_optimum_the_model_does_not_tie_is_placed_in_its_order() -> None:
    rates = np.array([[100.0] * 5, [50.0] * 5, [70.0] * 5])
    found = ties(_table(rates), [10.0, 30.0, 20.0])
    assert found.tied == 1 and not found.optimum_tied and found.optimum_place == 3
    assert found.friedman_p is None and found.spearman < 0
    assert "its best config (no other predicted within 1%) measures 50% of the optimum, " \
        "which is the model's #3" in ties_text(found)


def test_the_order_inside_a_tie_is_judged_against_the_medians() -> None:
    levels = np.array([60.0, 80.0, 100.0, 70.0])[:, None] * np.ones((1, 4))
    exact = ties(_table(levels), [300.0, 300.0, 300.0, 100.0])
    assert exact.group == (0, 1, 2) and exact.order_within is None  # a true tie: no order
    backwards = ties(_table(levels), [300.0, 299.0, 298.0, 100.0])
    assert backwards.order_within == pytest.approx(-1.0)
    assert "the model orders them against their medians with Spearman -1.00" in \
        ties_text(backwards)
    learnt = [10.0, 20.0, 30.0, 5.0]  # e.g. a surrogate's beliefs after some runs
    assert spearman_within(backwards.group, learnt, _table(levels).medians()) == \
        pytest.approx(1.0)
