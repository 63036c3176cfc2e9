"""sim-screened's grey-box surrogate, noise model, knowledge gradient and stop, on a synthetic
machine whose truth carries per-setting factors the simulator cannot represent (as the twin's
truth does: each setting multiplies the rate by a factor of its own) and whose runs are noisy."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult, Target
from iotwin.core.stats import row_spearman, spearman
from iotwin.search import run_strategy, strategy_settings
from iotwin.search.acquisition import choose_runs, expected_max, knowledge_gradient
from iotwin.search.noise import Noise, estimate
from iotwin.search.screened import Beliefs
from iotwin.search.surrogate import GreyBox
from iotwin.space.parameters import Point
from iotwin.tuning.campaign import CampaignEvaluator, Progress, Screening
from support.synthetic_machine import (
    SPACE,
    MechanismsModel,
    NoisyMachine,
    Truth,
    campaign_on,
    distinct_points,
    point_mechanisms,
    simulated,
)

SETTINGS = strategy_settings("sim-screened")


def test_the_grey_box_orders_a_group_the_simulator_ties_as_the_truth_does() -> None:
    truth = Truth(SPACE)
    points = distinct_points(SPACE)
    rng = random.Random(1)
    seen = rng.sample(points, 30)
    noise = estimate([], prior_sd=0.1, weight=2)
    runs = [[truth.rate(p) * math.exp(rng.gauss(0, 0.1))] for p in seen]
    surrogate = GreyBox(SPACE, SETTINGS)
    surrogate.fit(seen, [simulated(SPACE.config(p)) for p in seen], runs, noise)
    # the group the simulator ties at its top (within 1%), none of them run
    prior = {p: simulated(SPACE.config(p)) for p in points}
    tied = [p for p in points if prior[p] >= 0.99 * max(prior.values()) and p not in seen]
    assert len(tied) >= 20
    means, _ = surrogate.marginals(tied, [prior[p] for p in tied])
    true_rates = [truth.rate(p) for p in tied]
    learnt = spearman(means, true_rates)
    simulator = spearman([prior[p] for p in tied], true_rates)
    assert learnt >= 0.6 and learnt >= simulator + 0.5


def test_before_any_run_the_grey_box_believes_the_simulator() -> None:
    points = distinct_points(SPACE)[:10]
    rates = [simulated(SPACE.config(p)) for p in points]
    means, sds = GreyBox(SPACE, SETTINGS).marginals(points, rates)
    assert means == pytest.approx(np.log(rates))
    assert np.ptp(sds) == pytest.approx(0.0, abs=1e-12)  # every config equally unknown


def test_the_noise_model_recovers_the_machines_noise_from_repeats(tmp_path: Path) -> None:
    machine = NoisyMachine(Truth(SPACE), sd=0.2)
    campaign = campaign_on(tmp_path, machine, budget=200)
    points = distinct_points(SPACE)[:40]
    campaign.measure(points)
    prior = estimate((campaign.runs_of(p) for p in points), prior_sd=0.1, weight=2)
    assert prior.sd == pytest.approx(0.1) and prior.dof == 0  # one run each: the prior alone
    for _ in range(3):
        campaign.repeat(points)
    found = estimate((campaign.runs_of(p) for p in points), prior_sd=0.1, weight=2)
    assert found.dof == 120 and machine.runs == 160 == len(campaign.order)
    assert found.sd == pytest.approx(0.2, rel=0.15)
    assert all(len(campaign.runs_of(p)) == 4 for p in points)
    # a config's rate is the median of its runs
    assert campaign.measured[config_hash(SPACE.config(points[0]))].rate == pytest.approx(
        float(np.median(campaign.runs_of(points[0]))))


def test_the_runs_that_know_a_rate_to_a_target_grow_with_the_noise_and_the_target() -> None:
    # z(90%) = 1.2816: a run spreading 25% gives a mean within 5% (log 1.05 = 0.0488) after
    # (1.2816 x 0.25 / 0.0488)^2 = 43.1 runs, so 44; at 20% noise after 28 (27 runs give
    # 1.2816 x 0.2 / sqrt(27) = 0.0493, above log 1.05)
    assert Noise(0.25 ** 2, 10).runs_to_know(0.05, 0.9) == 44
    assert Noise(0.20 ** 2, 10).runs_to_know(0.05, 0.9) == 28
    assert Noise(0.20 ** 2, 10).runs_to_know(0.01, 0.99) > 2000  # a tight target: thousands
    assert Noise(0.01 ** 2, 10).runs_to_know(0.05, 0.9) == 1  # a quiet machine: one run
    assert Noise(0.30 ** 2, 10).runs_to_know(0.05, 0.5) == 1  # 50%: any one run will do


def test_the_bootstraps_rank_correlations_are_spearmans_of_each_resample() -> None:
    rng = np.random.default_rng(4)
    first = rng.integers(0, 5, size=(50, 12)).astype(float)  # many ties
    second = first + rng.normal(0, 2, size=first.shape)
    first[0] = 1.0  # a constant row: no order
    got = row_spearman(first, second)
    assert np.isnan(got[0])
    assert got[1:] == pytest.approx([spearman(a, b) for a, b in zip(first[1:], second[1:],
                                                                     strict=True)], abs=1e-12)


def test_expected_max_is_the_mean_of_the_upper_envelope() -> None:
    rng = np.random.default_rng(3)
    z = rng.standard_normal(200_000)
    for size in (1, 2, 5, 9):
        means, slopes = rng.normal(size=size), rng.normal(size=size)
        slopes[: size // 2] = slopes[0]  # parallel lines too
        sampled = float(np.max(means[:, None] + slopes[:, None] * z, axis=0).mean())
        assert expected_max(means.tolist(), slopes.tolist()) == pytest.approx(sampled, abs=0.01)


def test_the_knowledge_gradient_repeats_contenders_within_noise_and_runs_what_is_open() -> None:
    # two measured contenders within the noise, both uncertain; a new config believed worse
    mean = np.array([1.00, 0.99, 0.80])
    cov = np.diag([0.02, 0.02, 0.001])
    assert choose_runs(mean, cov, [0, 1], [0, 1, 2], 1, noise_variance=0.04)[0] in (0, 1)
    # the same with a new config whose belief is open (as likely better as worse)
    cov[2, 2] = 0.2
    assert choose_runs(mean, cov, [0, 1], [0, 1, 2], 1, noise_variance=0.04) == [2]
    # a repeat of a config that settles nothing (far below the best, little doubt) is worth ~0
    settled = knowledge_gradient(np.array([1.0, 0.5]), np.diag([0.001, 0.001]), [0, 1], 1, 0.04)
    assert settled == pytest.approx(0.0, abs=1e-6)


def test_where_no_run_gains_anything_the_batch_runs_the_most_hopeful_new_configs() -> None:
    # the best measured (0) is settled far above everything: every gain is ~0, and the runs go
    # to the unmeasured options in the order given, not to repeats of the measured in theirs
    mean = np.array([1.0, 0.3, 0.2, 0.5, 0.4])
    cov = np.diag([1e-6] * 5)
    chosen = choose_runs(mean, cov, [0, 1, 2], [0, 1, 2, 3, 4], 3, noise_variance=0.04)
    assert chosen[:2] == [3, 4]
    assert chosen[2] in (0, 1, 2)  # nothing new left: a repeat, as the gains rank them


def test_a_first_batch_the_simulator_predicts_exactly_leaves_doubt_on_unmeasured_configs(
) -> None:
    points = random.Random(0).sample(distinct_points(SPACE), 8)
    rates = [100.0 * (1 + i) for i in range(8)]
    surrogate = GreyBox(SPACE, SETTINGS)
    surrogate.fit(points[:6], rates[:6], [[r] for r in rates[:6]],
                  estimate([], prior_sd=0.2, weight=2))
    _, sds = surrogate.marginals(points[6:], rates[6:])
    assert all(sd >= SETTINGS["residual_min_sd"] for sd in sds)  # a kernel term's floor


def test_a_batch_spreads_over_configs_that_teach_different_things() -> None:
    # options 1 and 2 are one config in two copies (fully correlated), 3 is independent
    mean = np.array([1.0, 1.0, 1.0, 0.98])
    cov = np.array([[0.001, 0, 0, 0], [0, 0.1, 0.1, 0], [0, 0.1, 0.1, 0], [0, 0, 0, 0.09]])
    chosen = choose_runs(mean, cov, [0], [1, 2, 3], 2, noise_variance=0.01)
    assert sorted(chosen) in ([1, 3], [2, 3])  # not both copies


def beliefs_after_the_top_group(tmp_path: Path, truth: Truth, noise_sd: float, repeats: int,
                                seed: int = 0) -> tuple[Beliefs, list[Point]]:
    """Beliefs once 12 configs of the group the simulator puts on top have run, and the first
    two ``repeats`` more times; and the group's other configs."""
    campaign = campaign_on(tmp_path, NoisyMachine(truth, sd=noise_sd), budget=400,
                           name=f"top-{noise_sd}-{repeats}", seed=seed)
    beliefs = Beliefs(campaign, GreyBox(SPACE, SETTINGS), SETTINGS)
    top = [p for p in distinct_points(SPACE) if point_mechanisms(SPACE, p) == 300.0]
    random.Random(seed).shuffle(top)
    beliefs.run(top[:12], [])
    for _ in range(repeats):
        beliefs.run([], top[:2])
    return beliefs, top[12:]


def test_the_stop_waits_while_a_contender_may_beat_the_best_by_more_than_the_noise(
        tmp_path: Path) -> None:
    # a mechanism the runs have not seen: configs the simulator puts 3x above the best measured
    truth = Truth(SPACE, spread=0.0)
    campaign = campaign_on(tmp_path, NoisyMachine(truth, sd=0.05), budget=400)
    beliefs = Beliefs(campaign, GreyBox(SPACE, SETTINGS), SETTINGS)
    points = distinct_points(SPACE)
    low = [p for p in points if point_mechanisms(SPACE, p) == 100.0]
    high = [p for p in points if point_mechanisms(SPACE, p) == 300.0]
    beliefs.run(low[:10], [])
    assert not beliefs.settled(low[10:20])  # nothing repeated: the noise is the prior's alone
    beliefs.run([], low[:2])
    assert beliefs.noise.dof == SETTINGS["noise_dof"]
    assert not beliefs.settled(high[:5])
    # the noise is known, but not yet the best's own rate to 5%: its runs are too few
    assert beliefs.chance_missed(low[10:20]) <= 1 - SETTINGS["confidence"]
    assert not beliefs.best_known() and not beliefs.settled(low[10:20])
    for _ in range(6):
        beliefs.run([], low[:10])
    assert beliefs.best_known()
    assert not beliefs.settled(high[:5])
    assert beliefs.settled(low[10:20])  # the rest of the group it ran: no better in sight
    # settings the runs showed to matter (quiet runs): configs that combine the good ones
    for seed in (0, 2):
        truth = Truth(SPACE, spread=0.3, seed=seed)
        beliefs, rest = beliefs_after_the_top_group(tmp_path, truth, 0.02, 0, seed=seed)
        best_run = max(truth.rate(p) for p in beliefs.measured)
        assert best_run < 0.9 * max(truth.rate(p) for p in rest)
        assert not beliefs.settled(rest)


def test_the_stop_comes_once_the_users_target_is_met_and_not_before(tmp_path: Path) -> None:
    plateau = Truth(SPACE, spread=0.0)  # no hidden factor: the top group is one rate
    quiet, rest = beliefs_after_the_top_group(tmp_path, plateau, 0.05, 1)
    assert quiet.noise_known
    for _ in range(6):  # the best's own rate known to 5%, whichever of the 12 it is
        quiet.run([], quiet.measured)
    assert quiet.best_known()
    loose = Beliefs.fitted_to(quiet.evaluator, quiet.measured, {**SETTINGS, "target": 0.5})
    assert loose.settled(rest)
    assert quiet.settled(rest)  # a plateau: what it has not run is the best within 5%
    # noisy runs of the plateau spread 30%: even once repeats have shown the noise, a 5% gain
    # may hide in it, so the campaign runs on (and says so when its budget ends)
    noisy, rest = beliefs_after_the_top_group(tmp_path, plateau, 0.3, 3)
    assert noisy.noise.dof == 6 and noisy.noise.sd > 0.2
    chance = noisy.chance_missed(rest)
    assert chance is not None and chance > 1 - SETTINGS["confidence"]
    assert not noisy.best_known()  # 4 runs of a 30% spread: the best's rate to +-20%
    assert not noisy.settled(rest)


class Interrupted(Exception):
    pass


class InterruptedMachine(NoisyMachine):
    """The same machine, killed (an exception out of a run) at its ``after``-th run."""

    def __init__(self, truth: Truth, sd: float, after: int) -> None:
        super().__init__(truth, sd)
        self.after = after

    def run_once(self, target: Target, config: Config, *, seed: int = 0) -> RunResult:
        if self.runs + 1 == self.after:
            raise Interrupted
        return super().run_once(target, config, seed=seed)


def test_sim_screened_replays_its_repeats_on_a_resume_and_keeps_its_cap(tmp_path: Path) -> None:
    settings = {**SETTINGS, "population": 40, "inner_generations": 2}  # a quicker search
    truth = Truth(SPACE)
    reference = campaign_on(tmp_path, NoisyMachine(truth, sd=0.2), budget=30, name="ref")
    run_strategy("sim-screened", reference, seed=3, settings=settings)
    assert len(reference.order) <= 30
    assert len(reference.order) > len(reference.measured)  # it repeated contenders

    killed = campaign_on(tmp_path, InterruptedMachine(truth, sd=0.2, after=15), budget=30,
                         name="killed")
    with pytest.raises(Interrupted):
        run_strategy("sim-screened", killed, seed=3, settings=settings)
    machine = NoisyMachine(truth, sd=0.2)
    resumed = CampaignEvaluator(killed.store, killed.id, killed.spec, SPACE, machine,
                                MechanismsModel())
    run_strategy("sim-screened", resumed, seed=3, settings=settings)
    assert resumed.order == reference.order  # the same configs and repeats, in the same order
    assert machine.runs == len(reference.order) - 14  # only what the kill left undone ran
    for key, entry in reference.measured.items():
        assert [r.rate_mbs for r in resumed.measured[key].runs] == [r.rate_mbs
                                                                   for r in entry.runs]


# -- the prior's weight: a simulator that ranks the machine backwards -------------------------

QUICK = {**SETTINGS, "population": 60, "inner_generations": 2}  # a quicker screening


class BackwardsModel(MechanismsModel):
    """A simulator that ranks the machine backwards: its best mechanisms are the truth's
    worst (as a model written from what is public about a site may be)."""

    def predict(self, configs: Sequence[Config]) -> list[float | None]:
        return [30_000.0 / simulated(c) for c in configs]


def campaign_found(tmp_path: Path, strategy: str, model: MechanismsModel, seed: int,
                   budget: int = 30) -> tuple[float, list[Progress]]:
    """The truth's rate of the best config a campaign measured, over the truth's best; and
    the campaign's progress after each real batch."""
    reports: list[Progress] = []

    def collect(progress: Progress | Screening) -> None:
        if isinstance(progress, Progress):
            reports.append(progress)

    truth = Truth(SPACE, spread=0.2, seed=seed)
    campaign = campaign_on(tmp_path, NoisyMachine(truth, sd=0.1), budget, seed=seed,
                           name=f"{strategy}-{type(model).__name__}", model=model,
                           strategy=strategy, on_progress=collect)
    settings = QUICK if strategy == "sim-screened" else strategy_settings(strategy)
    run_strategy(strategy, campaign, seed=seed, settings=settings)
    best = campaign.best()
    assert best is not None
    optimum = max(truth.rate(p) for p in distinct_points(SPACE))
    return truth.rate(best.point) / optimum, reports


def versus_random(tmp_path: Path, model: MechanismsModel, seeds: int
                  ) -> tuple[list[list[Progress]], float, float]:
    """sim-screened's progress per seed, and the median over seeds of the best config found
    over the optimum by sim-screened and by random search."""
    reports, found, random_found = [], [], []
    for seed in range(seeds):
        ratio, progress = campaign_found(tmp_path, "sim-screened", model, seed)
        print(f"{type(model).__name__} seed {seed}: prior weight per batch "
              + " ".join(f"{w:.2f}" for w in prior_weights(progress)))
        reports.append(progress)
        found.append(ratio)
        random_found.append(campaign_found(tmp_path, "random", model, seed)[0])
    print(f"best found / optimum: sim-screened {found}, random {random_found}")
    return reports, statistics.median(found), statistics.median(random_found)


def prior_weights(reports: Sequence[Progress]) -> list[float]:
    return [r.state.prior_weight for r in reports if r.state is not None]


def test_a_simulator_that_ranks_the_machine_backwards_loses_its_weight(tmp_path: Path) -> None:
    campaigns, found, random_found = versus_random(tmp_path, BackwardsModel(), seeds=3)
    for reports in campaigns:
        weights = prior_weights(reports)
        assert weights[0] < 0.5 and max(weights[1:]) < 0.1  # the first batch tells it
        final = reports[-1].state
        assert final is not None and final.order is not None and final.order.high < 0
        assert "prior weight 0.0" in final.text() and "Spearman -" in final.text()
    # the search did not follow the simulator away from the best: no worse than random search
    assert found >= random_found


def test_a_simulator_that_orders_the_machine_keeps_its_weight(tmp_path: Path) -> None:
    campaigns, found, random_found = versus_random(tmp_path, MechanismsModel(), seeds=2)
    for reports in campaigns:
        weights = prior_weights(reports)
        # near its prior (model_prior 0.8) or above, as the runs confirm the prior's order
        assert min(weights) > 0.6 and weights[-1] > 0.75
    assert found > random_found
