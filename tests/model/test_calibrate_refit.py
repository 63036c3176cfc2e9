"""The in-campaign refit: which parameters it fits, the pull toward the model, the warm start,
and the coarse start that gets a fit off a plateau."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from iotwin.model.calibration import Observation, fit, influential_parameters, spread_by_rate
from iotwin.model.platforms import Platform, load_platform

LEVEL = "filesystem.target_mbs"  # scales every config's rate alike
ORDER = "filesystem.degradation"  # matters more the more writers a config has
IDLE = "filesystem.create_s"  # changes nothing here
CACHE = "lustre_client.osc_dirty_bytes"  # a step: a round fits in the cache or it does not
ROUND_BYTES = 128 * 2**20


def synthetic_rates(platform: Platform, observations: Sequence[Observation],
                    jobs: int = 2) -> list[float | None]:
    """rate = target_mbs * writers / (1 + degradation * writers): a known landscape."""
    filesystem = platform.data["filesystem"]
    return [filesystem["target_mbs"] * o.config["writers"]
            / (1 + filesystem["degradation"] * 100 * o.config["writers"])
            for o in observations]


def observations_of(platform: Platform, writers: Sequence[int],
                    noise: Sequence[float] = ()) -> list[Observation]:
    configs = [{"writers": w} for w in writers]
    empty = [Observation({}, c, 1.0) for c in configs]
    rates = synthetic_rates(platform, empty)
    factors = list(noise) or [1.0] * len(configs)
    return [Observation({}, c, (r or 0) * f)
            for c, r, f in zip(configs, rates, factors, strict=True)]


def test_influential_parameters_rank_reordering_then_level_and_skip_idle_ones() -> None:
    model = load_platform("hopper")
    observations = observations_of(model, [1, 4, 16, 64])
    assert influential_parameters(model, observations, 1, predictor=synthetic_rates) == [
        ORDER, LEVEL]
    chosen = influential_parameters(model, observations, 20, predictor=synthetic_rates)
    assert set(chosen) == {ORDER, LEVEL}  # every other free parameter leaves the rates alone
    assert IDLE not in chosen


def test_the_prior_keeps_few_noisy_runs_from_dragging_the_model() -> None:
    model = load_platform("hopper")
    prior = model.free_parameters()[LEVEL][0]
    truth = model.with_values({LEVEL: prior * 1.2})
    # two runs, both 25% high by the noise: unregularised, the fit follows them
    observations = observations_of(truth, [4, 16], noise=[1.25, 1.25])
    free = fit(model, observations, parameters=[LEVEL], predictor=synthetic_rates)
    pulled = fit(model, observations, parameters=[LEVEL], predictor=synthetic_rates,
                 prior_sigma=0.1)
    assert free.parameters[LEVEL] == pytest.approx(prior * 1.5, rel=0.02)
    assert prior < pulled.parameters[LEVEL] < free.parameters[LEVEL]
    assert pulled.details["prior_sigma"] == 0.1


def test_many_runs_outweigh_the_prior() -> None:
    model = load_platform("hopper")
    prior = model.free_parameters()[LEVEL][0]
    truth = model.with_values({LEVEL: prior * 1.3})
    observations = observations_of(truth, list(range(1, 41)))
    pulled = fit(model, observations, parameters=[LEVEL], predictor=synthetic_rates,
                 prior_sigma=0.3)
    assert pulled.parameters[LEVEL] == pytest.approx(prior * 1.3, rel=0.03)


def test_a_warm_start_at_the_answer_stays_there() -> None:
    model = load_platform("hopper")
    prior = model.free_parameters()[LEVEL][0]
    answer = prior * 1.4
    observations = observations_of(model.with_values({LEVEL: answer}), [2, 8, 32])
    cold = fit(model, observations, parameters=[LEVEL], predictor=synthetic_rates,
               max_evaluations=2)
    warm = fit(model, observations, parameters=[LEVEL], predictor=synthetic_rates,
               max_evaluations=2, start={LEVEL: answer})
    assert warm.parameters[LEVEL] == pytest.approx(answer, rel=1e-3)
    assert warm.fit_error < 1e-3 < cold.fit_error
    assert not math.isclose(cold.parameters[LEVEL], answer, rel_tol=1e-3)


def stepped_rates(platform: Platform, observations: Sequence[Observation],
                  jobs: int = 2) -> list[float | None]:
    """rate = 100 MB/s per writer, 3x when a 128 MiB round fits in the client cache."""
    fits = platform.data["lustre_client"]["osc_dirty_bytes"] >= ROUND_BYTES
    return [100.0 * o.config["writers"] * (3 if fits else 1) for o in observations]


def test_a_coarse_start_gets_the_fit_off_a_plateau() -> None:
    model = load_platform("hopper")
    start = model.free_parameters()[CACHE][0]
    assert start < ROUND_BYTES  # the model starts on the slow plateau
    truth = model.with_values({CACHE: 4 * ROUND_BYTES})
    observations = [Observation({}, {"writers": w}, rate or 0) for w, rate in
                    zip([2, 8], stepped_rates(truth, [Observation({}, {"writers": w}, 1)
                                                      for w in [2, 8]]), strict=True)]
    stuck = fit(model, observations, parameters=[CACHE], predictor=stepped_rates)
    scanned = fit(model, observations, parameters=[CACHE], predictor=stepped_rates,
                  scan_points=5)
    assert stuck.parameters[CACHE] == pytest.approx(start)  # zero gradient: it never moved
    assert stuck.fit_error == pytest.approx(2 / 3)
    assert scanned.parameters[CACHE] >= ROUND_BYTES
    assert scanned.fit_error == pytest.approx(0.0)
    assert scanned.details["scan_evaluations"] == 6  # the start and 5 points


def test_a_looser_tolerance_stops_sooner_at_nearly_the_same_fit() -> None:
    model = load_platform("hopper")
    prior = model.free_parameters()[ORDER][0]
    truth = model.with_values({LEVEL: model.free_parameters()[LEVEL][0] * 1.3,
                               ORDER: prior * 2.0})
    observations = observations_of(truth, [1, 2, 4, 8, 16, 32, 64])
    tight = fit(model, observations, parameters=[LEVEL, ORDER], predictor=synthetic_rates)
    loose = fit(model, observations, parameters=[LEVEL, ORDER], predictor=synthetic_rates,
                tolerance=1e-3)
    assert loose.details["evaluations"] < tight.details["evaluations"]
    for name in (LEVEL, ORDER):
        assert loose.parameters[name] == pytest.approx(tight.parameters[name], rel=0.02)


def test_the_influence_is_judged_on_configs_spread_over_the_measured_rates() -> None:
    observations = [Observation({}, {"writers": w}, float(rate))
                    for w, rate in enumerate([5, 1, 9, 3, 7, 2, 8, 4, 6])]
    chosen = spread_by_rate(observations, 3)
    assert [o.rate_mbs for o in chosen] == [1.0, 5.0, 9.0]  # slowest, middle, fastest
    assert spread_by_rate(observations, 0) == observations
    assert spread_by_rate(observations, 20) == observations
