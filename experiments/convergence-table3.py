"""Runs needed to reach the optimum: sim-screened vs h5evolve vs random, on a twin machine.

Reads convergence-table3.yaml, finds the truth model's optimum by simulating every point of
the (pinned) space without noise, then runs each strategy from each seed against the twin
until a measured config's noise-free rate is within the target of that optimum, and prints
the real runs each needed: median, min-max, and how often the cap was hit first.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from iotwin.calibrate import SimModel
from iotwin.campaign import Campaign, CampaignSpec, platform_context, run_campaign
from iotwin.executors.base import RunResult, Target
from iotwin.executors.twin import TwinExecutor
from iotwin.platforms import load_platform
from iotwin.search import NEEDS_MODEL, BudgetExhausted
from iotwin.space import BoundSpace, load_space
from iotwin.store import Store, config_hash

SPEC_FILE = Path(__file__).with_suffix(".yaml")


class TargetReached(BudgetExhausted):
    """Ends a campaign as soon as a measured config is good enough: the figure is known."""


class CountingTwin:
    """The twin, counting real runs until one measures a config within the target."""

    source = "twin"

    def __init__(self, twin: TwinExecutor, true_rate: Mapping[str, float], goal: float) -> None:
        self.twin, self.true_rate, self.goal = twin, true_rate, goal
        self.runs = 0
        self.best_true = 0.0

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        self.runs += 1
        self.best_true = max(self.best_true, self.true_rate.get(config_hash(config), 0.0))
        result = self.twin.run_once(target, config, seed=seed)
        if self.best_true >= self.goal:
            raise TargetReached
        return result


def exhaustive_truth(twin: TwinExecutor, target: Target, space: BoundSpace
                     ) -> dict[str, float]:
    configs = {config_hash(c): c for c in map(space.config, space.points())}
    rates = twin.true_rates(target, list(configs.values()))
    return {key: rate for key, rate in zip(configs, rates, strict=True) if rate}


def runs_to_target(spec: CampaignSpec, space: BoundSpace, twin: TwinExecutor,
                   true_rate: Mapping[str, float], goal: float, store: Store,
                   study: Mapping[str, Any]) -> int | None:
    executor = CountingTwin(twin, true_rate, goal)
    model = (SimModel(load_platform(spec.platform), twin.workload(spec.target),
                      study.get("fit_parameters"), study.get("fit_evaluations", 20))
             if spec.strategy in NEEDS_MODEL else None)
    campaign_id = store.create_campaign(f"convergence {spec.strategy} seed {spec.seed}",
                                        kind="tune", spec=spec.to_json())
    run_campaign(Campaign(store, campaign_id, spec, space, executor, model))
    return executor.runs if executor.best_true >= goal else None


def main(spec_file: Path) -> int:
    study = yaml.safe_load(spec_file.read_text())
    target = Target(ranks=study["ranks"], kernel=study["kernel"], args=tuple(study["args"]))
    space = load_space(study["space"]).bind(platform_context(study["platform"], study["ranks"]),
                                            study["fixed"])
    twin = TwinExecutor(study["platform"], truth_seed=study["truth_seed"])
    started = time.perf_counter()
    true_rate = exhaustive_truth(twin, target, space)
    optimum = max(true_rate.values())
    print(f"{study['platform']} twin (truth seed {study['truth_seed']}), {target.label}, "
          f"space {study['space']} pinned {study['fixed']}: {len(true_rate)} distinct configs, "
          f"optimum {optimum:.0f} MB/s ({time.perf_counter() - started:.0f} s to simulate all)")
    goal = study["target"] * optimum
    results: dict[str, list[int | None]] = {}
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "study.db") as store:
        for strategy, cap in study["strategies"].items():
            results[strategy] = []
            for seed in study["seeds"]:
                spec = CampaignSpec(ranks=target.ranks, platform=study["platform"],
                                    space=study["space"], strategy=strategy, executor="twin",
                                    real_budget=cap, kernel=target.kernel, args=target.args,
                                    seed=seed, truth_seed=study["truth_seed"],
                                    fixed=study["fixed"],
                                    settings=study.get("settings", {}).get(strategy, {}))
                runs = runs_to_target(spec, space, twin, true_rate, goal, store, study)
                results[strategy].append(runs)
                print(f"  {strategy:13s} seed {seed}: "
                      f"{runs if runs is not None else f'not within {cap}'} runs", flush=True)
    print_table(results, study)
    return 0


def print_table(results: Mapping[str, list[int | None]], study: Mapping[str, Any]) -> None:
    print(f"\nreal runs to come within {100 * (1 - study['target']):.0f}% of the optimum "
          f"(seeds {study['seeds']}):")
    medians = {}
    for strategy, runs in results.items():
        cap = study["strategies"][strategy]
        counted = [r if r is not None else cap for r in runs]  # a miss counts as the cap
        medians[strategy] = statistics.median(counted)
        missed = sum(r is None for r in runs)
        print(f"  {strategy:13s} median {medians[strategy]:6.1f}  min {min(counted):4d}  "
              f"max {max(counted):4d}  missed {missed}/{len(runs)} (cap {cap})")
    if "sim-screened" in medians and "h5evolve" in medians:
        print(f"  h5evolve / sim-screened (medians): "
              f"{medians['h5evolve'] / medians['sim-screened']:.1f}x")


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SPEC_FILE))
