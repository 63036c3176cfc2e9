"""Runs needed to reach the optimum: sim-screened vs h5evolve vs random, on a twin machine.

Reads convergence-table3.yaml (or the spec given), and for each truth seed (a machine: the
platform's perturbed, noisy twin) finds the truth's optimum by simulating every point of the
(pinned) space without noise, cached on disk so it is computed once per truth. Then it runs
each strategy from each search seed against that twin until a measured config's noise-free
rate is within the target of the optimum, and prints the real runs each needed: median,
min-max, per seed, and how often the cap was hit first. The figures also go to a Markdown
file next to the spec (SPEC.md), with the command that made them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from iotwin.core import paths
from iotwin.core.hashing import config_hash
from iotwin.core.records import RunResult, Target
from iotwin.executors.twin import TwinExecutor
from iotwin.model.calibration import RefitSettings, SimModel
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim import simulate
from iotwin.search import BudgetExhausted, select, strategy_settings
from iotwin.space.parameters import BoundSpace, load_space
from iotwin.store.database import Store
from iotwin.tuning.campaign import CampaignEvaluator, CampaignSpec, platform_context, run_campaign

SPEC_FILE = Path(__file__).with_suffix(".yaml")
CACHE_DIR = paths.repo_root() / "runs" / "convergence"



class TargetReached(BudgetExhausted):
    """Ends a campaign as soon as a measured config is good enough: the figure is known."""


class CountingTwin:
    """The twin, counting real runs until one measures a config within the target; with
    ``to_end`` the campaign goes on to its own stop."""

    source = "twin"

    def __init__(self, twin: TwinExecutor, true_rate: Mapping[str, float], goal: float,
                 to_end: bool = False) -> None:
        self.twin, self.true_rate, self.goal, self.to_end = twin, true_rate, goal, to_end
        self.runs = 0
        self.reached_at: int | None = None

    def run_once(self, target: Target, config: Mapping[str, Any], *, seed: int = 0) -> RunResult:
        self.runs += 1
        if self.reached_at is None and self.true_rate.get(config_hash(config), 0.0) >= self.goal:
            self.reached_at = self.runs
        result = self.twin.run_once(target, config, seed=seed)
        if self.reached_at is not None and not self.to_end:
            raise TargetReached
        return result


@dataclass(frozen=True)
class Outcome:
    """One campaign: runs to the target (None: not reached), and, run to its own stop, the
    runs it used and the true rate of the config it recommends (its best measured) as a
    fraction of the optimum."""

    reached_at: int | None
    runs: int
    recommended: float | None


def with_twin(platform: Platform, settings: Mapping[str, Any] | None) -> Platform:
    """The platform whose twin section has ``settings`` (Platform.truth reads them: how far
    each truth is from the model) in place of its own."""
    if not settings:
        return platform
    tree = copy.deepcopy(platform.tree)
    twin = tree.setdefault("twin", {})
    for key, value in settings.items():
        twin[key] = {"value": value, "assumption": "convergence study: the machine's truth"}
    return Platform(platform.name, tree, platform.origin, platform.noise)


def exhaustive_rates(label: str, platform: Platform, workload: Mapping[str, Any],
                     space: BoundSpace, rates_of: Callable[[list[dict[str, Any]]], list[Any]]
                     ) -> dict[str, float]:
    """Rate of every distinct config by ``rates_of``, cached under runs/convergence/ by
    everything it depends on (platform values, workload, configs, simulator binary)."""
    configs = {config_hash(c): c for c in map(space.config, space.points())}
    inputs = json.dumps([platform.data, workload, sorted(configs)], sort_keys=True).encode()
    digest = hashlib.sha256(inputs + paths.simulator_binary().read_bytes()).hexdigest()[:16]
    cache = CACHE_DIR / f"{label}-{digest}.json"
    if cache.exists():
        return dict(json.loads(cache.read_text()))
    rates = rates_of(list(configs.values()))
    found = {key: rate for key, rate in zip(configs, rates, strict=True) if rate}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(found))
    return found


def exhaustive_truth(twin: TwinExecutor, target: Target, space: BoundSpace
                     ) -> dict[str, float]:
    """Noise-free truth rate of every distinct config."""
    return exhaustive_rates(twin.truth.name, twin.truth, twin.workload(target), space,
                            lambda configs: twin.true_rates(target, configs))


def model_optimum(model: Platform, workload: Mapping[str, Any], space: BoundSpace) -> str:
    """The config (hash) the uncalibrated model predicts best: what a model-guided search
    measures first. Where it lands in a truth says how far the truth is from the model."""
    def rates_of(configs: list[dict[str, Any]]) -> list[float | None]:
        return [r.rate_mbs if r.ok else None for r in simulate(model, dict(workload), configs)]
    predicted = exhaustive_rates(f"{model.name}-model", model, workload, space, rates_of)
    return max(predicted, key=lambda key: predicted[key])


def runs_to_target(spec: CampaignSpec, space: BoundSpace, twin: TwinExecutor,
                   true_rate: Mapping[str, float], goal: float, store: Store,
                   to_end: bool) -> Outcome:
    executor = CountingTwin(twin, true_rate, goal, to_end)
    refit = RefitSettings.from_settings(strategy_settings(spec.strategy, spec.settings))
    model = (SimModel(load_platform(spec.platform), twin.workload(spec.target), refit)
             if select(spec.strategy).needs_model else None)
    campaign_id = store.create_campaign(f"convergence {spec.strategy} seed {spec.seed}",
                                        kind="tune", spec=spec.to_json())
    campaign = CampaignEvaluator(store, campaign_id, spec, space, executor, model)
    run_campaign(campaign)
    best = campaign.best()
    recommended = true_rate.get(config_hash(best.config)) if best else None
    return Outcome(executor.reached_at, executor.runs,
                   recommended / max(true_rate.values()) if recommended else None)


def main(spec_file: Path) -> int:
    study = yaml.safe_load(spec_file.read_text())
    target = Target(ranks=study["ranks"], kernel=study["kernel"], args=tuple(study["args"]))
    space = load_space(study["space"]).bind(platform_context(study["platform"], study["ranks"]),
                                            study["fixed"])
    machine = with_twin(load_platform(study["platform"]), study.get("truth"))
    results: dict[str, dict[tuple[int, int], Outcome]] = {s: {} for s in study["strategies"]}
    began = time.perf_counter()
    lines = [f"{study['platform']} twin, {target.label}, space {study['space']} pinned "
             f"{study['fixed']} ({space.size} points), target {study['target']} of the optimum"]
    print(lines[0], flush=True)
    model_best: str | None = None
    for truth_seed in study["truth_seeds"]:
        twin = TwinExecutor(machine, truth_seed=truth_seed)
        started = time.perf_counter()
        true_rate = exhaustive_truth(twin, target, space)
        model_best = model_best or model_optimum(load_platform(study["platform"]),
                                                 twin.workload(target), space)
        optimum = max(true_rate.values())
        lines.append(f"truth seed {truth_seed}: optimum {optimum:.0f} MB/s, "
                     f"{sum(r >= study['target'] * optimum for r in true_rate.values())} of "
                     f"{len(true_rate)} configs within the target; the model's own best "
                     f"config is at {true_rate.get(model_best, 0.0) / optimum:.3f} of it")
        print(f"{lines[-1]} ({time.perf_counter() - started:.0f} s)", flush=True)
        for strategy, cap in study["strategies"].items():
            for search_seed in study["seeds"]:
                # a search path of its own on each truth: rows pooled over truths are
                # independent (random's path, for one, does not depend on the machine)
                seed = search_seed + 100 * truth_seed
                outcome = run_one(study, target, space, twin, true_rate, optimum, strategy, cap,
                                  truth_seed, seed)
                results[strategy][(truth_seed, seed)] = outcome
                print(f"  {strategy:13s} truth {truth_seed} seed {seed}: "
                      f"{describe(outcome, cap)}", flush=True)
    lines.append(f"wall time {(time.perf_counter() - began) / 60:.0f} min on this machine "
                 f"(2 cores), the exhaustive optima included unless cached")
    report = summary(results, study, lines, spec_file)
    print("\n" + report)
    spec_file.with_suffix(".md").write_text(report)
    return 0


def run_one(study: Mapping[str, Any], target: Target, space: BoundSpace, twin: TwinExecutor,
            true_rate: Mapping[str, float], optimum: float, strategy: str, cap: int,
            truth_seed: int, seed: int) -> Outcome:
    spec = CampaignSpec(ranks=target.ranks, platform=study["platform"], space=study["space"],
                        strategy=strategy, executor="twin", real_budget=cap,
                        kernel=target.kernel, args=target.args, seed=seed,
                        truth_seed=truth_seed, fixed=study["fixed"],
                        settings=study.get("settings", {}).get(strategy, {}))
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "study.db") as store:
        return runs_to_target(spec, space, twin, true_rate, study["target"] * optimum, store,
                              strategy in study.get("run_to_end", []))


def describe(outcome: Outcome, cap: int) -> str:
    reached = outcome.reached_at if outcome.reached_at is not None else f"not within {cap}"
    if outcome.runs == outcome.reached_at:
        return f"{reached} runs"
    recommended = f"{outcome.recommended:.3f}" if outcome.recommended else "none"
    return (f"{reached} runs; stopped itself after {outcome.runs}, recommending "
            f"{recommended} of the optimum")


def summary(results: Mapping[str, Mapping[tuple[int, int], Outcome]],
            study: Mapping[str, Any], context: Sequence[str], spec_file: Path) -> str:
    """The figures as Markdown: one row per strategy, then every run."""
    within = f"{100 * (1 - study['target']):.0f}%"
    spec = spec_file.resolve()
    shown = spec.relative_to(paths.repo_root()) if paths.repo_root() in spec.parents else spec
    out = [f"# Real runs to come within {within} of the optimum", "",
           f"`.venv/bin/python experiments/convergence-table3.py {shown}`", "",
           *[f"- {c}" for c in context], "",
           "| strategy | median | min-max | missed (cap) | runs per truth seed/campaign seed |",
           "|---|---|---|---|---|"]
    medians = {}
    for strategy, outcomes in results.items():
        cap = study["strategies"][strategy]
        runs = {key: o.reached_at for key, o in outcomes.items()}
        counted = [r if r is not None else cap for r in runs.values()]  # a miss counts as cap
        medians[strategy] = statistics.median(counted)
        each = ", ".join(f"{t}/{s}: {r if r is not None else '-'}" for (t, s), r in runs.items())
        out.append(f"| {strategy} | {medians[strategy]:g} | {min(counted)}-{max(counted)} | "
                   f"{sum(r is None for r in runs.values())}/{len(counted)} ({cap}) | {each} |")
    if medians.get("sim-screened") and "h5evolve" in medians:
        out += ["", f"h5evolve / sim-screened (medians): "
                    f"{medians['h5evolve'] / medians['sim-screened']:.1f}x"]
    for strategy in study.get("run_to_end", []):
        used = [o.runs for o in results[strategy].values()]
        ratios = [o.recommended or 0.0 for o in results[strategy].values()]
        out += ["", f"{strategy} run to its own stop: {statistics.median(used):g} runs "
                    f"(median; {min(used)}-{max(used)}), recommending a config at "
                    f"{min(ratios):.3f}-{max(ratios):.3f} of the optimum (true rates)"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else SPEC_FILE))
