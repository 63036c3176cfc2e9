"""Transfer: the residuals an earlier campaign on the same platform left in the store lean a
new campaign's first batch their way (iotwin.search.transfer, iotwin.tuning.transfer)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from iotwin.core.stats import spearman
from iotwin.search import run_strategy, strategy_settings
from iotwin.search.transfer import SettingFactors
from iotwin.space.parameters import Point
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator, Progress, Screening
from iotwin.tuning.transfer import earlier_residuals
from support.synthetic_machine import (
    SPACE,
    NoisyMachine,
    Truth,
    campaign_on,
    distinct_points,
    mechanisms,
)

SETTINGS = {**strategy_settings("sim-screened"), "population": 60, "inner_generations": 2}


def first_batch(tmp_path: Path, machine: NoisyMachine, store: Store
                ) -> tuple[CampaignEvaluator, list[Point], list[Progress]]:
    """A new campaign in ``store`` whose budget is its first batch: the points it ran and
    its progress."""
    reports: list[Progress] = []

    def collect(progress: Progress | Screening) -> None:
        if isinstance(progress, Progress):
            reports.append(progress)

    campaign = campaign_on(tmp_path, machine, SETTINGS["first_batch"], seed=2,  # no probe
                           on_progress=collect, store=store)
    run_strategy("sim-screened", campaign, seed=2, settings=SETTINGS)
    return campaign, [m.point for m in campaign.measured.values()], reports


def test_an_earlier_campaigns_residuals_lean_the_first_batch_their_way(tmp_path: Path) -> None:
    machine = NoisyMachine(Truth(SPACE, spread=0.3, seed=5), sd=0.05)
    site = Store(tmp_path / "site.db")
    earlier = campaign_on(tmp_path, machine, 24, seed=1, store=site)
    run_strategy("sim-screened", earlier, seed=1, settings=SETTINGS)

    informed, batch, reports = first_batch(tmp_path, machine, site)
    _, alone, _ = first_batch(tmp_path, machine, Store(tmp_path / "new.db"))

    residuals = earlier_residuals(site, informed.id, "synthetic")
    assert len(residuals) == len(earlier.measured)  # every config it measured teaches
    assert earlier_residuals(site, earlier.id, "synthetic") == []  # nothing before it
    assert earlier_residuals(site, informed.id, "another platform") == []
    factors = SettingFactors.fitted(residuals, SETTINGS["transfer_shrink"])
    # what they transfer to each config of the space follows the truth's hidden factors
    points = distinct_points(SPACE)
    order = spearman([factors.of(SPACE.config(p)) for p in points],
                     [math.log(machine.truth.rate(p) / mechanisms(SPACE.config(p)))
                      for p in points])
    print(f"transferred factor against the truth's hidden one: Spearman {order:.2f}")
    assert order > 0.3

    leaning = [statistics.fmean(factors.of(SPACE.config(p)) for p in run)
               for run in (batch, alone)]
    truth = [statistics.fmean(machine.truth.rate(p) for p in run) for run in (batch, alone)]
    print(f"first batch's transferred log factor {leaning[0]:+.3f} (alone {leaning[1]:+.3f}); "
          f"its mean true rate {truth[0]:.0f} MB/s (alone {truth[1]:.0f})")
    assert batch != alone and leaning[0] > leaning[1]
    state = reports[-1].state
    assert state is not None and state.transferred == len(residuals)
    assert f"residuals of {len(residuals)} configs earlier campaigns" in state.text()



def test_setting_factors_recover_additive_effects_and_shrink_the_rarely_seen() -> None:
    effects = {("stripe_count", 4): 0.3, ("stripe_count", 8): -0.3,
               ("cb_nodes", 1): 0.1, ("cb_nodes", 2): -0.1}
    residuals = [({"lustre": {"stripe_count": count}, "mpiio": {"cb_nodes": nodes}},
                  effects["stripe_count", count] + effects["cb_nodes", nodes])
                 for count in (4, 8) for nodes in (1, 2) for _ in range(25)]
    rare = {"lustre": {"stripe_count": 16}, "mpiio": {"cb_nodes": 1}}
    residuals.append((rare, 1.0 + effects["cb_nodes", 1]))  # one config, far off
    factors = SettingFactors.fitted(residuals, shrink=4.0)
    best, worst = ({"lustre": {"stripe_count": c}, "mpiio": {"cb_nodes": n}}
                   for c, n in ((4, 1), (8, 2)))
    assert abs(factors.of(best) - factors.of(worst) - 0.8) < 0.05  # 0.3 + 0.1 - (-0.3 - 0.1)
    assert 0 < factors.factors["lustre.stripe_count=16"] < 0.5  # seen once: pulled toward 0
    assert factors.of({"lustre": {"stripe_count": 32}}) == 0.0  # never seen: no factor
    assert factors.configs == len(residuals)
