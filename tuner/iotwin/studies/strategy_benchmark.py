"""Real runs to a good config: every strategy, many seeds, against a measured table.

    benchmark(spec):
        table   <- a measured landscape (iotwin landscape measure); the optimum is its best
                   median, and a config is "within X%" when its median is
        for each strategy, for each seed:
            campaign <- the strategy, unchanged, on the table executor (replay seed = seed),
                        run to its own stop or to its cap; its runs in the order they ran
            for b = 1 .. the campaign's runs:          # had it been stopped after b runs
                recommended(b) <- the tuning pipeline's confirmation of its first b runs
                                  (iotwin.tuning.confirmation.confirm: the best `confirm`
                                  configs and the default where the table holds it,
                                  `confirm_runs` further runs each, up to
                                  `confirm_max_runs` for those that race,
                                  best median); a config's further runs are its next stored
                                  repetitions after the search's, the same whatever b
                cost(b) = b + the confirmation's runs
            search runs to X% = the first b whose recommended config is within X% (none: a
                                miss, counted as the cap); with its confirmation: cost(b)
        per strategy: median and quartiles of runs to each target, misses; per model-guided
        strategy: how well its model ranked the table, before and after its last refit;
        per table: the configs the platform model ties, as loaded and refitted to every
        median (iotwin.studies.model_ties: does the table tell them apart?)

What is counted: "runs to X%" are the search's real runs, b, until the config the campaign
would recommend had it stopped there is within X% of the best (the runs a user spends before
the search has found, and would recommend, a good config); the confirmation that picks the
recommendation among its best measured configs costs up to (`confirm` + 1) x `confirm_runs`
runs more, reported beside it ("with its confirmation": cost(b)), not folded into it: it is the
same for every strategy, and a campaign that stops by itself may skip it.

A campaign stopped after b runs chooses exactly the first b runs of a longer one (the
strategies measure in order and stop at the budget), so one campaign per seed gives every b.
A config re-run in the confirmation gives the same runs at every b, as one more run of it on
the machine would: were they drawn afresh for each b, "runs to X%" would be the first of many
independent confirmations that happened to land within X%, and a strategy that runs longer
would hold more such draws (on a table whose best configs the confirmation cannot tell apart,
the tighter targets then measure the cap, not the search).
Each campaign lives in the store it is given under a name of its table, strategy and seed; a
benchmark run again on that store resumes the campaigns it finds there (the tuning pipeline's
resume: nothing stored runs or simulates again). Run in parallel, a finished campaign also
leaves its figures beside its store, and a run again reads them instead of replaying it.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from iotwin.config.types import Config
from iotwin.core.errors import InputError, UserError
from iotwin.core.hashing import canonical_json, config_hash
from iotwin.core.progress import say
from iotwin.core.run_records import Target
from iotwin.core.stats import median_ratio_interval, median_relative_error, paired_spearman
from iotwin.core.worker_pool import worker_pool
from iotwin.core.yaml_files import read_input
from iotwin.executors.table import Landscape, TableExecutor, read_table
from iotwin.model.calibration import RefitSettings, SimModel
from iotwin.model.platforms import load_platform
from iotwin.model.sheet_schema import check_record, record_schema
from iotwin.model.sim_memo import memoised
from iotwin.search import strategy_kind, strategy_settings
from iotwin.search.screened import Beliefs
from iotwin.space.parameters import BoundSpace
from iotwin.store.database import Store
from iotwin.studies.model_ties import Ties, ties
from iotwin.tuning.campaign import (
    CampaignEvaluator,
    Progress,
    Screening,
    open_campaign,
    run_campaign,
)
from iotwin.tuning.confirmation import ConfirmationRun, confirm
from iotwin.tuning.parts import assemble, campaign_space
from iotwin.tuning.spec import CampaignSpec, PipelineOptions
from iotwin.validation.local import load_suite
from iotwin.workloads.replication.output import write_atomically
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import kernel_workload, load_workload, normalised_workload

#: in the campaigns' folder: iosim's answers, shared by every campaign of the benchmark (its
#: seeds screen the same configs under the model as loaded, and its first refits' steps)
SIMULATION_MEMO = "simulations.sqlite"

#: the store's kind of a benchmark's campaigns: not "tune", so that no campaign of a benchmark
#: learns from another's residuals (iotwin.tuning.transfer reads tuning campaigns), even where
#: its seeds share a store (run_benchmark): each measures a strategy from scratch
CAMPAIGN_KIND = "benchmark"


@dataclass(frozen=True)
class TableCase:
    """One measured table and what the model needs to simulate its workload."""

    name: str
    table_path: Path
    table: Landscape
    target: Target
    platform: str
    space: str
    workload: Workload | None  # a program's captured workload (None: a kernel)

    def model_workload(self) -> Workload:
        """What the model simulates: the program's workload, or the kernel's own."""

        return self.workload or kernel_workload(str(self.target.kernel), self.target.ranks,
                                                list(self.target.args))


@dataclass(frozen=True)
class BenchmarkSettings:
    seeds: int = 20
    confirm: int = 3
    confirm_runs: int = 3
    confirm_max_runs: int = PipelineOptions.confirm_max_runs
    targets: tuple[float, ...] = (0.05, 0.02)
    caps: Mapping[str, int] = field(default_factory=dict)  # strategy -> its real-run cap

    def cap(self, strategy: str, case: TableCase) -> int:
        """The strategy's real-run cap: the spec's, or every config of the table."""
        return self.caps.get(strategy, len(case.table.configs))


@dataclass
class Trajectory:
    """One campaign: the recommended config's median / the optimum after each cost."""

    costs: list[int]
    ratios: list[float]
    runs: int  # the campaign's own runs (search only)
    #: the search runs b behind each cost (the cost less its confirmation's runs)
    searched: list[int] = field(default_factory=list)
    model: dict[str, float] = field(default_factory=dict)  # model figures, model-guided only
    #: model-guided only: the rate its grey-box surrogate believes of each table config once
    #: refitted to every run of the campaign (None: not a point of the space, or no prediction)
    believed: list[float | None] | None = None
    #: sim-screened only: the prior's weight after each real batch (iotwin.search.trust)
    prior_weights: list[float] = field(default_factory=list)
    #: after each search run: the best median of the table among the configs run so far, over
    #: the optimum (what the search had found, whether its confirmation could tell or not)
    measured_best: list[float] = field(default_factory=list)

    def cost_to(self, fraction: float) -> int | None:
        return next((c for c, r in zip(self.costs, self.ratios, strict=True)
                     if r >= 1 - fraction), None)

    def search_runs_to(self, fraction: float) -> int | None:
        """The search runs (the confirmation's not counted) of the first recommendation
        within ``fraction``."""
        return next((b for b, r in zip(self.searched, self.ratios, strict=True)
                     if r >= 1 - fraction), None)

    def found_in(self, fraction: float) -> int | None:
        """The search runs until it had run a config within ``fraction`` (by the table's
        median), recommended or not."""
        return next((b for b, r in enumerate(self.measured_best, 1) if r >= 1 - fraction), None)


@dataclass
class StrategyFigures:
    strategy: str
    cap: int
    trajectories: list[Trajectory]

    def runs_to(self, fraction: float, *, searched: bool = False) -> list[int | None]:
        """Each seed's runs to ``fraction`` with its confirmation (``searched``: the search
        runs alone); None: missed."""
        return [t.search_runs_to(fraction) if searched else t.cost_to(fraction)
                for t in self.trajectories]

    def found_in(self, fraction: float) -> list[int | None]:
        """Each seed's search runs until a config within ``fraction`` had run; None: never."""
        return [t.found_in(fraction) for t in self.trajectories]

    def summary(self, fraction: float, *, searched: bool = False) -> dict[str, Any]:
        """Median and quartiles of runs to ``fraction``, a miss counted as the cap's cost
        (``searched``: of the search runs alone, a miss counted as the cap)."""
        return self._quartiles(self.runs_to(fraction, searched=searched),
                               self.cap if searched else self.cap_cost)

    def counted_runs(self, fraction: float, *, searched: bool = False) -> list[int]:
        """Each seed's runs to ``fraction``, a miss counted as :meth:`summary` counts it."""
        miss = self.cap if searched else self.cap_cost
        return [r if r is not None else miss for r in self.runs_to(fraction, searched=searched)]

    def found_summary(self, fraction: float) -> dict[str, Any] | None:
        """Median and quartiles of :meth:`found_in`, never counted as the cap; None when a
        campaign was recorded without its measured configs' medians."""
        if any(t.runs and not t.measured_best for t in self.trajectories):
            return None
        return self._quartiles(self.found_in(fraction), self.cap)

    def _quartiles(self, runs: Sequence[int | None], miss: int) -> dict[str, Any]:
        counted = [r if r is not None else miss for r in runs]
        q1, median, q3 = np.percentile(counted, [25, 50, 75])
        return {"median": float(median), "q1": float(q1), "q3": float(q3),
                "misses": sum(r is None for r in runs), "seeds": len(runs)}

    @property
    def cap_cost(self) -> int:
        """What a miss counts as: the cap, and the largest confirmation after it."""
        return max([self.cap, *(t.costs[-1] for t in self.trajectories if t.costs)])


def run_benchmark(case: TableCase, strategies: Sequence[str], settings: BenchmarkSettings,
                  store: Store, progress: TextIO | None = sys.stderr) -> list[StrategyFigures]:
    """Every seed of each strategy against ``case``, one campaign after another, in ``store``."""
    return [StrategyFigures(strategy, settings.cap(strategy, case),
                            [run_one(case, strategy, seed, settings, store, progress)
                             for seed in range(settings.seeds)])
            for strategy in strategies]


def run_in_parallel(cases: Sequence[TableCase], settings: BenchmarkSettings, campaigns: Path,
                    jobs: int) -> list[list[StrategyFigures]]:
    """Every campaign of the benchmark, one (table, strategy, seed) each, ``jobs`` at once in
    processes of their own; per case, its strategies' figures in the spec's order.
    Every campaign reads and adds to one memo of iosim's answers (iotwin.model.sim_memo), which
    changes no answer.

    A campaign is the unit, not a strategy's seeds together, so that a slow strategy (sim-
    screened on a large platform) spreads over every process instead of running its seeds one
    after another. Each keeps a store of its own under ``campaigns``, where a run cut short
    and started again finds and resumes it."""
    # seed by seed: a run cut short has every table and strategy at its first seeds
    units = [(index, strategy, seed) for seed in range(settings.seeds)
             for index in range(len(cases)) for strategy in settings.caps]
    campaigns.mkdir(parents=True, exist_ok=True)
    work = [(cases[index], strategy, seed, settings, campaigns) for index, strategy, seed in units]
    # a Pool, not a ProcessPoolExecutor: leaving it on Ctrl-C or SIGTERM terminates the
    # workers, where an executor's shutdown waits for them to finish their campaigns
    with worker_pool(jobs) as pool:
        done = dict(zip(units, pool.starmap(_run_in_own_store, work, chunksize=1), strict=True))
    return [[StrategyFigures(strategy, settings.cap(strategy, case),
                             [done[index, strategy, seed] for seed in range(settings.seeds)])
             for strategy in settings.caps]
            for index, case in enumerate(cases)]


def _run_in_own_store(case: TableCase, strategy: str, seed: int, settings: BenchmarkSettings,
                      campaigns: Path) -> Trajectory:
    """The campaign run, resumed, or, once it has finished, read back from the record it left
    beside its store: resuming a finished campaign replays its strategy's every step (a
    surrogate's fits, a screening's), which costs about what running it did."""
    stem = f"{case.name}-{strategy}-seed{seed}"
    record = campaigns / f"{stem}.finished.json"
    key = _finished_key(campaign_spec(case, strategy, seed, settings), settings)
    kept = _finished(record, key)
    if kept is not None:
        say(sys.stderr, _progress_line(case, strategy, seed, kept, settings))
        return kept
    with (Store(campaigns / f"{stem}.db") as store, memoised(campaigns / SIMULATION_MEMO)):
        trajectory = run_one(case, strategy, seed, settings, store)
    write_atomically(record, json.dumps({"key": key,
                                         "trajectory": dataclasses.asdict(trajectory)}))
    return trajectory


def _finished_key(spec: CampaignSpec, settings: BenchmarkSettings) -> dict[str, Any]:
    """What a finished campaign's figures depend on: its spec and how it is confirmed, as a
    record's JSON reads back (tuples as lists), to compare with the key a record holds."""
    return json.loads(canonical_json({"spec": spec.to_json(), "confirm": settings.confirm,
                                      "confirm_runs": settings.confirm_runs,
                                      "confirm_max_runs": settings.confirm_max_runs,
                                      "targets": list(settings.targets)}))


def _finished(record: Path, key: Mapping[str, Any]) -> Trajectory | None:
    """The trajectory a finished campaign recorded, if its key is ``key``; None if there is
    no record, or it is of another spec or unreadable (the campaign is then resumed)."""
    try:
        found = json.loads(record.read_text())
        return Trajectory(**found["trajectory"]) if found["key"] == key else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def campaign_spec(case: TableCase, strategy: str, seed: int,
                  settings: BenchmarkSettings) -> CampaignSpec:
    """The campaign of ``strategy`` from ``seed`` against the table, replayed from it."""
    return CampaignSpec(ranks=case.target.ranks, platform=case.platform, space=case.space,
                        strategy=strategy, executor="table",
                        real_budget=settings.cap(strategy, case),
                        kernel=case.target.kernel, args=case.target.args,
                        command=case.target.command, seed=seed, truth_seed=seed,
                        workload=case.workload, table=str(case.table_path))


@dataclass(frozen=True)
class PlayedCampaign:
    """A benchmark campaign run to its end against a table, before it is judged."""

    campaign: CampaignEvaluator
    replay: TableExecutor  # the executor it ran on: its confirmation runs come from there
    prior_weights: list[float]  # sim-screened only: the prior's weight after each real batch


def play(case: TableCase, strategy: str, seed: int, settings: BenchmarkSettings,
         store: Store) -> PlayedCampaign:
    """``strategy`` from ``seed`` against the table, to its own stop or its cap (a campaign
    of the same spec left in ``store`` resumed)."""
    spec = campaign_spec(case, strategy, seed, settings)
    name = f"benchmark {case.name} {strategy} seed {seed}"
    campaign_id = (stored_campaign(store, name, spec)
                   or store.create_campaign(name, kind=CAMPAIGN_KIND, spec=spec.to_json()))
    replay = TableExecutor(case.table, replay_seed=seed)
    weights: list[float] = []

    def prior_weight(progress: Progress | Screening) -> None:
        if isinstance(progress, Progress) and progress.state is not None:
            weights.append(progress.state.prior_weight)

    campaign = open_campaign(store, campaign_id, assemble(spec, executor=replay), prior_weight)
    run_campaign(campaign)
    return PlayedCampaign(campaign, replay, weights)


def run_one(case: TableCase, strategy: str, seed: int, settings: BenchmarkSettings,
            store: Store, progress: TextIO | None = sys.stderr) -> Trajectory:
    """One campaign (:func:`play`) and what its recommendation was worth after each run,
    judged on its own table (:func:`trajectory`); a line of progress when done."""
    played = play(case, strategy, seed, settings, store)
    judged = trajectory(case.table, played.campaign, played.replay, settings)
    judged.prior_weights = played.prior_weights
    say(progress, _progress_line(case, strategy, seed, judged, settings))
    return judged


def _progress_line(case: TableCase, strategy: str, seed: int, trajectory: Trajectory,
                   settings: BenchmarkSettings) -> str:
    """A finished campaign's line: its runs to each target, and sim-screened's prior weights
    (experiments/results/benchmark_progress.py reads it back)."""
    reached = ", ".join(f"{100 * f:g}%: {trajectory.search_runs_to(f) or 'missed'}"
                        f" ({trajectory.cost_to(f) or '-'} with its confirmation)"
                        for f in settings.targets)
    weights = trajectory.prior_weights
    trust = (f"; prior weight per batch {' '.join(f'{w:.2g}' for w in weights)}"
             if weights else "")
    return (f"  {case.name} {strategy} seed {seed}: {trajectory.runs} runs; "
            f"search runs to {reached}{trust}")


def stored_campaign(store: Store, name: str, spec: CampaignSpec) -> int | None:
    """The campaign a benchmark cut short left in ``store`` for this seed, if its spec is
    unchanged: resumed, it replays its stored runs and runs only what is missing."""
    wanted = canonical_json(spec.to_json())
    return next((c.id for c in store.campaigns(kind=CAMPAIGN_KIND)
                 if c.name == name and canonical_json(c.spec) == wanted), None)


def confirmation_run(campaign: CampaignEvaluator, replay: TableExecutor) -> ConfirmationRun:
    """A confirmation run of a config on ``replay`` (the executor the campaign ran on): its
    next draw there after every search run of it (its repeats included), the same at every b."""
    searched = {key: len(entry.runs) for key, entry in campaign.measured.items()}

    def run(config: Config, slot: int, round_index: int) -> float | None:
        draws = searched.get(config_hash(config), campaign.spec.repetitions)
        return replay.replay(config, draws + round_index).rate_mbs
    return run


def trajectory(table: Landscape, campaign: CampaignEvaluator, replay: TableExecutor,
               settings: BenchmarkSettings) -> Trajectory:
    """What the campaign's recommendation was worth after each of its runs, judged by
    ``table``'s medians (the table it ran on, or runs of it held out); its confirmation runs
    drawn from ``replay``, the executor the campaign ran on (:func:`confirmation_run`)."""
    replayed = confirmation_run(campaign, replay)
    has_default = table.rates_of({}) is not None  # an imported table may not hold it
    costs, ratios, search_runs = [], [], []
    for b in range(1, len(campaign.order) + 1):
        spent = [0]

        def run(config: Config, slot: int, round_index: int,
                spent: list[int] = spent) -> float | None:
            spent[0] += 1
            return replayed(config, slot, round_index)

        confirmed = confirm(measured_after(campaign, b), settings.confirm,
                            settings.confirm_runs, run, default=has_default,
                            most_runs=settings.confirm_max_runs)
        if not confirmed:
            continue
        costs.append(b + spent[0])
        search_runs.append(b)
        ratios.append((table.median_of(confirmed[0].config) or 0.0) / table.optimum)
    medians = [(table.median_of(campaign.measured[key].config) or 0.0) / table.optimum
               for key in campaign.order]
    return Trajectory(costs, ratios, len(campaign.order), search_runs,
                      _model_figures(table, campaign), _believed(table, campaign),
                      measured_best=list(itertools.accumulate(medians, max)))


@dataclass(frozen=True)
class _SearchedConfig:
    config: Config
    rate: float | None


def measured_after(campaign: CampaignEvaluator, measurements: int) -> dict[str, _SearchedConfig]:
    """What the campaign had measured after its first ``measurements`` (a new config's
    ``repetitions`` runs, or one repeat, each): each config's median over its runs by then."""
    counts: dict[str, int] = {}
    for key in campaign.order[:measurements]:
        counts[key] = counts.get(key, 0) + 1
    found = {}
    for key, count in counts.items():
        entry = campaign.measured[key]
        runs = entry.runs[:campaign.spec.repetitions + count - 1]
        rates = [run.rate_mbs for run in runs if run.ok and run.rate_mbs]
        found[key] = _SearchedConfig(entry.config, statistics.median(rates) if rates else None)
    return found


def _model_figures(table: Landscape, campaign: CampaignEvaluator) -> dict[str, float]:
    """How the campaign's model did: its error on the configs it chose to run (predicted just
    before each ran, against the table's median), and its Spearman on the whole table after
    the campaign's last refit."""
    if campaign.model is None:
        return {}
    chosen = campaign.measured.values()
    error = median_relative_error([m.predicted for m in chosen],
                                  [table.median_of(m.config) for m in chosen])
    return {"chosen_error": float("nan") if error is None else error,
            "refitted_spearman": paired_spearman(campaign.model.predict(table.configs),
                                                 table.medians())}


def _believed(table: Landscape, campaign: CampaignEvaluator) -> list[float | None] | None:
    """The campaign's grey-box beliefs (iotwin.search.screened.Beliefs, refitted to every run
    it made) of each table config: how its surrogate orders what the model ties."""
    if campaign.model is None:
        return None
    settings = strategy_settings(campaign.spec.strategy, campaign.spec.settings)
    measured = [m.point for m in campaign.measured.values() if m.rate is not None]
    beliefs = Beliefs.fitted_to(campaign, measured, settings)
    points = {config_hash(campaign.space.config(p)): p for p in campaign.space.points()}
    found = [points.get(config_hash(config)) for config in table.configs]
    believed = iter(beliefs.marginals([p for p in found if p is not None]))
    return [None if point is None or (b := next(believed)) is None else math.exp(b.mean)
            for point in found]


@dataclass(frozen=True)
class ModelOnTable:
    """The platform model against a table: as loaded, and refitted to every config's median
    (as sim-screened refits, from all the table can teach it)."""

    loaded: Ties
    fitted: Ties
    parameters: list[str]  # those the refit chose


def model_on_table(case: TableCase, simulations: int | None = None) -> ModelOnTable:
    """``simulations``: at most this many for the refit (None: sim-screened's own refit)."""
    bounded = RefitSettings.from_settings(strategy_settings("sim-screened"))
    if simulations is not None:
        evaluations = max(1, simulations // len(case.table.configs) - 1)
        bounded = dataclasses.replace(bounded, evaluations=min(bounded.evaluations, evaluations))
    model = SimModel(load_platform(case.platform), case.model_workload(), bounded)
    loaded = ties(case.table, model.predict(case.table.configs))
    measured = [(c, m) for c, m in zip(case.table.configs, case.table.medians(), strict=True)
                if m]
    refit = model.fit(measured)
    parameters = refit.details.get("parameters")
    return ModelOnTable(loaded, ties(case.table, model.predict(case.table.configs)),
                        list(parameters) if isinstance(parameters, list) else [])


def runs_relative_to(figures: Sequence[StrategyFigures], fraction: float,
                     reference: str = "sim-screened", *, searched: bool = True
                     ) -> dict[str, float]:
    """Each other strategy's median search runs to ``fraction`` over ``reference``'s
    (``searched`` False: runs with the confirmation's)."""
    medians = {f.strategy: f.summary(fraction, searched=searched)["median"] for f in figures}
    if reference not in medians:
        return {}
    return {name: value / medians[reference] for name, value in medians.items()
            if name != reference}


def runs_relative_interval(figures: Sequence[StrategyFigures], fraction: float,
                           reference: str = "sim-screened", *, level: float = 0.95
                           ) -> dict[str, tuple[float, float]]:
    """:func:`runs_relative_to`'s ratios (search runs) with their ``level`` bootstrap
    intervals over the seeds, each strategy paired with ``reference`` seed by seed (both ran
    the same replay seeds; a miss counted as its cap)."""
    counted = {f.strategy: f.counted_runs(fraction, searched=True) for f in figures}
    if reference not in counted:
        return {}
    return {name: median_ratio_interval(runs, counted[reference], level=level)
            for name, runs in counted.items() if name != reference}


def curve(figures: StrategyFigures, max_cost: int) -> np.ndarray:
    """Rows 25th, 50th, 75th percentile over seeds of the recommended config's median /
    optimum, had each campaign stopped at 1 .. max_cost runs (0 before its first
    recommendation; a campaign that stopped by itself keeps its last recommendation)."""
    grid = np.zeros((len(figures.trajectories), max_cost))
    for row, trajectory in enumerate(figures.trajectories):
        for cost, ratio in zip(trajectory.costs, trajectory.ratios, strict=True):
            if cost <= max_cost:
                grid[row, cost - 1:] = ratio
    return np.percentile(grid, [25, 50, 75], axis=0)


# -- the spec -----------------------------------------------------------------------------------

def load_benchmark(path: Path) -> tuple[list[TableCase], BenchmarkSettings]:
    """The benchmark spec (experiments/strategy-benchmark.yaml; its schema
    data/benchmark-schema.yaml): its tables (each the landscape spec it was measured from,
    the CSV and a program's workload beside it) and settings; UserError naming what is
    wrong."""
    return read_input(path, "benchmark spec", _parse_benchmark)


def _parse_benchmark(document: Any, origin: str) -> tuple[list[TableCase], BenchmarkSettings]:
    data = check_record(origin, "", document, record_schema("benchmark-schema")["spec"])
    strategies = data["strategies"]
    for name in strategies:
        try:
            strategy_kind(name)
        except UserError as error:
            raise InputError(origin, f"strategies.{name}", str(error)) from None
    cases = [_table_case(Path(origin), name, landscape)
             for name, landscape in data["tables"].items()]
    settings = BenchmarkSettings(
        seeds=data.get("seeds", 20), confirm=data.get("confirm", 3),
        confirm_runs=data.get("confirm_runs", 3),
        confirm_max_runs=data.get("confirm_max_runs", PipelineOptions.confirm_max_runs),
        targets=tuple(data.get("targets", (0.05, 0.02))), caps=dict(strategies))
    return cases, settings


def _table_case(spec: Path, name: str, landscape: str) -> TableCase:
    """A benchmark spec's table ``name`` (its landscape spec, relative to the spec's folder);
    an error reading it names the benchmark spec's key too."""
    try:
        return table_case(name, spec.parent / landscape)
    except UserError as error:
        raise InputError(str(spec), f"tables.{name}", str(error)) from None


def table_case(name: str, landscape: Path) -> TableCase:
    """The table measured from the landscape spec ``landscape`` (its CSV beside it, and a
    program's captured workload, ``.workload.yaml``)."""

    suite, workload = _landscape_spec(landscape)
    csv = landscape.with_suffix(".csv")
    return TableCase(name, csv, read_table(csv), suite.target, suite.platform, suite.space,
                     workload)


def landscape_space(landscape: Path) -> BoundSpace:
    """The space a table of the landscape spec ``landscape`` holds configs of: its space on
    its platform (the site's model: a table measured there)."""
    suite, workload = _landscape_spec(landscape)
    return campaign_space(CampaignSpec(
        ranks=suite.target.ranks, platform=suite.platform, space=suite.space,
        strategy="random", executor="twin", kernel=suite.target.kernel, args=suite.target.args,
        command=suite.target.command, workload=workload))


def timed_region(landscape: Path) -> str:
    """The region the landscape spec's rates are timed over, as its model simulates them: its
    program's workload's ``timed`` (sim-models/WORKLOAD.md), a kernel's open to close."""
    suite, workload = _landscape_spec(landscape)
    model = workload or kernel_workload(str(suite.target.kernel), suite.target.ranks,
                                        list(suite.target.args))
    return str(normalised_workload(model, str(landscape))["timed"])


def _landscape_spec(landscape: Path) -> tuple[Any, Workload | None]:
    """The spec's suite and a program's captured workload (``.workload.yaml`` beside it)."""
    suite = load_suite(landscape)
    workload = load_workload(landscape.with_suffix(".workload.yaml")) if suite.command else None
    return suite, workload
