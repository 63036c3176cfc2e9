"""A tuning campaign: a strategy's evaluations, measured and predicted, all in the store.

:class:`CampaignEvaluator` is the :class:`~iotwin.search.evaluator.Evaluator` the strategies
talk to (the store's ``Campaign`` is its row). It turns points into configs, runs new configs
on the executor (``repetitions`` times; the median rate counts), predicts with the model,
refits it after each real batch, and records every repetition, prediction and calibration in
the store the moment it exists.

Resuming: a strategy is deterministic given its seed and the rates it is told, so a resumed
campaign replays it from the start. Measured configs are found by canonical hash in the
store (a config whose repetitions were cut short gets only the missing ones), predictions
and calibrations are looked up by the number of measurements they were made after, so the
replay reaches the point where the campaign was killed without running or storing anything
twice.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, cast

from iotwin import executors
from iotwin.errors import UserError
from iotwin.executors.base import Executor, JobExecutor, RunResult, Target, queues_jobs
from iotwin.executors.launch import require_program
from iotwin.model.protocol import Model
from iotwin.search import run_strategy, select, strategy_settings
from iotwin.search.evaluator import BudgetExhausted
from iotwin.space.parameters import BoundSpace, Point, SpaceContext, load_space
from iotwin.space.restricted import RestrictedSpace
from iotwin.stats import format_mbs, median_relative_error
from iotwin.store.database import Evaluation, Source, Store, config_hash, workload_of
from iotwin.tuning.job_batch import PlannedRun, run_as_jobs


@dataclass(frozen=True)
class CampaignSpec:
    """Everything needed to start, or resume, a campaign (stored as the campaign's spec)."""

    ranks: int
    platform: str
    space: str
    strategy: str
    executor: str
    real_budget: int
    kernel: str | None = None
    args: tuple[str, ...] = ()
    command: tuple[str, ...] = ()
    seed: int = 0
    repetitions: int = 1
    timeout_s: float | None = 600.0
    truth_seed: int = 0
    fixed: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    workload: dict[str, Any] | None = None  # a program's workload (captured), for the model
    site: str | None = None  # the slurm executor's site file (None: the default site)
    table: str | None = None  # the table executor's measured table (CSV)

    @property
    def needs_capture(self) -> bool:
        """A program to tune in simulation whose workload is not known yet."""
        return (select(self.strategy).needs_model and self.kernel is None
                and self.workload is None)

    @property
    def target(self) -> Target:
        return Target(ranks=self.ranks, kernel=self.kernel, args=self.args,
                      command=self.command)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CampaignSpec:
        tuples = {key: tuple(data.get(key, ())) for key in ("args", "command")}
        return cls(**{**data, **tuples})


@dataclass(frozen=True)
class Progress:
    generation: int
    runs_used: int
    budget: int
    best_measured: float | None
    best_predicted: float | None
    model_error: float | None  # median |predicted / measured - 1| over the last real batch


@dataclass
class _Measured:
    point: Point
    config: dict[str, Any]
    rate: float | None
    predicted: float | None  # the model's rate for it just before it was measured


class CampaignEvaluator:
    def __init__(self, store: Store, campaign_id: int, spec: CampaignSpec, space: BoundSpace,
                 executor: Executor, model: Model | None = None,
                 on_progress: Callable[[Progress], None] | None = None) -> None:
        self.store, self.id, self.spec, self.space = store, campaign_id, spec, space
        self.executor, self.model = executor, model
        self.on_progress = on_progress or (lambda progress: None)
        self.measured: dict[str, _Measured] = {}
        self._batch: list[_Measured] = []
        self._next_generation = 0
        self._calibration_id = 0  # 0: the platform model as loaded
        self._stored_repetitions = self._group_by_hash(
            [row for row in self._rows(executor.source) if _is_search_run(row)])
        self._stored_predictions = {
            (row.details.get("calibration", 0), row.config_hash): row.rate_mbs
            for row in self._rows("sim")}
        self._predictions: dict[str, float | None] = {}

    # -- Evaluator ------------------------------------------------------------------------------

    def runs_left(self) -> int:
        return self.spec.real_budget - len(self.measured)

    def is_measured(self, point: Point) -> bool:
        return config_hash(self.space.config(point)) in self.measured

    def measure(self, points: Sequence[Point]) -> list[float | None]:
        """The points' median rates; the configs not measured yet run as one batch (within
        the budget: the points past it are not run, and BudgetExhausted is raised after)."""
        configs = [self.space.config(point) for point in points]
        keys = [config_hash(config) for config in configs]
        new: dict[str, _Measured] = {}
        for point, config, key in zip(points, configs, keys, strict=True):
            if key in self.measured or key in new:
                continue
            if self.runs_left() - len(new) <= 0:
                self._measure_batch(new)
                raise BudgetExhausted
            new[key] = _Measured(point, config, None, self._predictions.get(key))
        self._measure_batch(new)
        return [self.measured[key].rate for key in keys]

    def predict(self, points: Sequence[Point]) -> list[float | None]:
        if self.model is None:
            return [None] * len(points)
        configs = [self.space.config(point) for point in points]
        keys = [config_hash(config) for config in configs]
        missing = {k: c for k, c in zip(keys, configs, strict=True)
                   if k not in self._predictions and not self._restore_prediction(k)}
        if missing:
            rates = self.model.predict(list(missing.values()))
            self._predictions.update(zip(missing, rates, strict=True))
            self.store.add_evaluations(self._prediction_row(config, rate) for config, rate
                                       in zip(missing.values(), rates, strict=True))
        return [self._predictions[key] for key in keys]

    def recalibrate(self) -> None:
        observed = [(m.config, m.rate) for m in self.measured.values() if m.rate is not None]
        if self.model is None or not observed:
            return
        stored = self._stored_calibration(len(self.measured))
        if stored is not None:
            self._calibration_id, parameters = stored
            self.model.use(parameters)
        else:
            fit = self.model.fit(observed)
            self._calibration_id = self.store.add_calibration(
                self.model.platform_name, fit.parameters, fit_error=fit.fit_error,
                heldout_error=self.batch_error(), campaign_id=self.id,
                details={**fit.details, "measured": len(self.measured),
                         "heldout": "prediction error on the real batch before this fit"})
        self._predictions = {}

    def end_generation(self, generation: int, best_predicted: float | None = None) -> None:
        best = self.best()
        self.on_progress(Progress(generation, len(self.measured), self.spec.real_budget,
                                  best.rate if best else None, best_predicted,
                                  self.batch_error()))
        self._batch = []
        self._next_generation = generation + 1

    def finish(self) -> None:
        """Report the runs of a generation the budget cut short."""
        if self._batch:
            self.end_generation(self._next_generation)

    # -- results --------------------------------------------------------------------------------

    def best(self) -> _Measured | None:
        ok = [m for m in self.measured.values() if m.rate is not None]
        return max(ok, key=lambda m: m.rate or 0.0) if ok else None

    def batch_error(self) -> float | None:
        return median_relative_error([m.predicted for m in self._batch],
                                     [m.rate for m in self._batch])

    # -- measuring ------------------------------------------------------------------------------

    def _measure_batch(self, new: Mapping[str, _Measured]) -> None:
        """Each new config's repetitions: stored ones are reused, missing ones run (all of the
        batch's at once on an executor that queues jobs); the median rate counts."""
        runs: list[tuple[str, PlannedRun]] = []
        for index, (key, entry) in enumerate(new.items()):
            details = {"measured_index": len(self.measured) + index}
            done = len(self._stored_repetitions.get(key, []))
            runs += [(key, self._planned(entry.config, repetition, details))
                     for repetition in range(done, self.spec.repetitions)]
        results = self._run_all([run for _, run in runs])
        fresh: dict[str, list[RunResult]] = {}
        for (key, _), (result, _) in zip(runs, results, strict=True):
            fresh.setdefault(key, []).append(result)
        for key, entry in new.items():
            stored = [row.run_result() for row in self._stored_repetitions.get(key, [])]
            rates = [run.rate_mbs for run in stored + fresh.get(key, [])
                     if run.ok and run.rate_mbs]
            entry.rate = statistics.median(rates) if rates else None
            self.measured[key] = entry
            self._batch.append(entry)

    def run_and_store(self, config: Mapping[str, Any], repetition: int,
                      details: Mapping[str, Any]) -> tuple[RunResult, int]:
        """One real run of ``config``, in the store the moment it exists; with its id there."""
        [(result, evaluation_id)] = self._run_all([self._planned(config, repetition, details)])
        return result, evaluation_id

    def _planned(self, config: Mapping[str, Any], repetition: int,
                 details: Mapping[str, Any]) -> PlannedRun:
        return PlannedRun(config, repetition, self._run_seed(config_hash(config), repetition),
                          details)

    def _run_all(self, runs: Sequence[PlannedRun]) -> list[tuple[RunResult, int]]:
        """The runs' results in order with their ids in the store, each stored the moment it
        exists: one at a time, or as a batch of scheduler jobs (iotwin.tuning.job_batch)."""
        if queues_jobs(self.executor):
            return run_as_jobs(cast(JobExecutor, self.executor), self.store, self.id,
                               self.spec.target, runs, self._store_run)
        results = []
        for run in runs:
            result = self.executor.run_once(self.spec.target, run.config, seed=run.seed)
            results.append((result, self._store_run(run, result)))
        return results

    def _run_seed(self, key: str, repetition: int) -> int:
        """Distinct per config and repetition, reproducible from the campaign seed."""
        return (self.spec.seed * 1_000_003 + int(key[:8], 16) + repetition) % 2**31

    def _store_run(self, run: PlannedRun, result: RunResult) -> int:
        return self.store.add_run(self.id, self.spec.target, result, config=run.config,
                                  platform=self.spec.platform, source=self.executor.source,
                                  repetition=run.repetition, details=run.details)

    # -- predictions and calibrations in the store ----------------------------------------------

    def _restore_prediction(self, key: str) -> bool:
        found = (self._calibration_id, key) in self._stored_predictions
        if found:
            self._predictions[key] = self._stored_predictions[(self._calibration_id, key)]
        return found

    def _prediction_row(self, config: Mapping[str, Any], rate: float | None) -> dict[str, Any]:
        assert self.model is not None
        ok = rate is not None and math.isfinite(rate) and rate > 0
        return dict(
            campaign_id=self.id, config=config, workload=workload_of(self.spec.target),
            ranks=self.spec.ranks,
            platform=self.model.platform_name, source="sim", status="ok" if ok else "failed",
            rate_mbs=rate if ok else None, details={"calibration": self._calibration_id})

    def _stored_calibration(self, measured: int) -> tuple[int, dict[str, float]] | None:
        for calibration in self.store.calibrations():
            if (calibration.campaign_id == self.id
                    and calibration.details.get("measured") == measured):
                return calibration.id, calibration.parameters
        return None

    def _rows(self, source: Source) -> list[Evaluation]:
        return self.store.evaluations(self.id, source=source)

    @staticmethod
    def _group_by_hash(rows: Sequence[Evaluation]) -> dict[str, list[Evaluation]]:
        grouped: dict[str, list[Evaluation]] = {}
        for row in rows:
            grouped.setdefault(row.config_hash, []).append(row)
        return grouped


def _is_search_run(row: Evaluation) -> bool:
    """A repetition that counts for a config's search rate: one the search ran, or the capture
    run of the default (a campaign's first measurement of it); not a confirmation or summary."""
    return "measured_index" in row.details or row.details.get("label") == "capture"


def capture_workload_of(store: Store, campaign_id: int, spec: CampaignSpec,
                        progress: Callable[[str], None] = lambda line: None) -> CampaignSpec:
    """The spec with the program's workload, captured from one run of the default config on
    this machine; that run is stored as the campaign's first measurement of the default, and
    the spec with its workload as the campaign's spec (a resume does not capture again)."""
    from iotwin.workloads.capture import capture_program

    program = capture_program(spec.target, timeout_s=spec.timeout_s or 600.0)
    result, workload = program.run, program.workload
    store.add_run(campaign_id, spec.target, result, config={}, platform=spec.platform,
                  source="real", details={"label": "capture"})
    for what in program.not_modelled:
        progress(f"capture: not modelled: {what}")
    captured = replace(spec, workload=workload)
    # the stored spec's other keys (the tune pipeline's options) stay
    store.update_campaign_spec(campaign_id, {**store.campaign(campaign_id).spec,
                                             **captured.to_json()})
    progress(f"captured the workload of {spec.target.label}: {len(workload['files'])} file "
             f"session(s), default config {format_mbs(result.rate_mbs or 0)} MB/s")
    return captured


# -- assembling a campaign from its spec --------------------------------------------------------

def space_context(spec: CampaignSpec) -> SpaceContext:
    """Where the campaign's real runs happen, and what its program can take, as its space
    needs them."""
    from iotwin.workloads.partial_writes import partial_write_datasets

    context = replace(executors.space_context(spec.executor, spec.platform, spec.ranks),
                      mpi=program_mpi(spec))
    if spec.workload is None:
        return context
    apis = tuple(sorted({str(f.get("api", "hdf5")) for f in spec.workload["files"]}))
    return replace(context, partial_writes=partial_write_datasets(spec.workload), apis=apis)


def program_mpi(spec: CampaignSpec) -> str:
    """The MPI flavour the campaign's program runs under: its workload's, else the one of the
    HDF5 it loads where the executor launches it; MPICH for measured tables and twins."""
    from iotwin.executors.mpi_flavour import flavour_of
    from iotwin.workloads.workload import DEFAULT_MPI, workload_mpi

    if spec.workload is not None:
        return workload_mpi(spec.workload)
    if executors.select(spec.executor).launches_programs:
        return flavour_of(spec.target).name
    return DEFAULT_MPI


def spec_executor(spec: CampaignSpec) -> Executor:
    return executors.make_executor(spec.executor, spec.platform, timeout_s=spec.timeout_s,
                                   truth_seed=spec.truth_seed, site=spec.site, table=spec.table)


def campaign_space(spec: CampaignSpec) -> BoundSpace:
    """The space the campaign searches: its space where the runs happen, pinned by ``fixed``,
    and restricted to the configs its executor can run (a table's)."""
    space = load_space(spec.space).bind(space_context(spec), spec.fixed)
    configs = executors.runnable_configs(spec.executor, spec.table)
    return space if configs is None else RestrictedSpace(space, configs)


def make_model(spec: CampaignSpec) -> Model:
    from iotwin.model.calibration import SimModel

    return SimModel.for_target(spec.platform, spec.target,
                               strategy_settings(spec.strategy, spec.settings), spec.workload)


def check_spec(spec: CampaignSpec) -> None:
    """Raise UserError for a spec that cannot run, before anything is stored or run."""
    if spec.ranks < 1 or spec.real_budget < 1 or spec.repetitions < 1:
        raise UserError("ranks, the real-run budget and repetitions must be >= 1")
    strategy_settings(spec.strategy, spec.settings)
    if spec.command:
        require_program(spec.command[0])
    campaign_space(spec)
    if spec.needs_capture and spec.executor != "local":
        raise UserError(f"{spec.strategy} simulates the program's workload, captured from a run "
                        f"on this machine: use --executor local, or give --workload W.yaml "
                        f"(iotwin workload capture)")
    spec_executor(spec)


def open_campaign(store: Store, campaign_id: int, spec: CampaignSpec,
                  on_progress: Callable[[Progress], None] | None = None, *,
                  executor: Executor | None = None) -> CampaignEvaluator:
    """The campaign of ``spec`` as stored under ``campaign_id``, ready to run or resume."""
    space = campaign_space(spec)
    model = make_model(spec) if select(spec.strategy).needs_model else None
    return CampaignEvaluator(store, campaign_id, spec, space, executor or spec_executor(spec),
                             model, on_progress)


def run_campaign(campaign: CampaignEvaluator) -> None:
    settings = strategy_settings(campaign.spec.strategy, campaign.spec.settings)
    run_strategy(campaign.spec.strategy, campaign, campaign.spec.seed, settings)
    campaign.finish()
