"""A tuning campaign: a strategy's evaluations, measured and predicted, all in the store.

:class:`CampaignEvaluator` is the :class:`~iotwin.search.evaluator.Evaluator` the strategies
talk to (the store's ``Campaign`` is its row). It turns points into configs, runs new configs
on the executor (``repetitions`` times) and a measured one once more when the strategy repeats
it (a config's rate is the median of its runs; the budget counts measurements: a new config
or a repeat uses one), predicts with the model
(:mod:`~iotwin.tuning.predictions`), refits it after each real batch
(:mod:`~iotwin.tuning.recalibration`), and records every repetition, prediction and
calibration in the store the moment it exists. A resumed campaign replays its strategy from
the start, and whatever it had already is found in the store
(:mod:`~iotwin.tuning.stored_runs`), not run again.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import Objective, RunResult
from iotwin.core.stats import median_relative_error
from iotwin.executors.base import Executor, JobExecutor, queues_jobs
from iotwin.model.protocol import Model
from iotwin.search import run_strategy, strategy_settings
from iotwin.search.evaluator import BudgetExhausted
from iotwin.search.trust import SearchState
from iotwin.space.parameters import BoundSpace, Point
from iotwin.store.database import Store
from iotwin.tuning.job_batch import PlannedRun, run_as_jobs
from iotwin.tuning.parts import CampaignParts
from iotwin.tuning.predictions import Predictions
from iotwin.tuning.recalibration import recalibrate
from iotwin.tuning.spec import CampaignSpec
from iotwin.tuning.stored_runs import StoredRuns
from iotwin.tuning.transfer import earlier_residuals


@dataclass(frozen=True)
class Progress:
    generation: int
    runs_used: int
    budget: int
    best_measured: float | None
    best_predicted: float | None
    model_error: float | None  # median |predicted / measured - 1| over the last real batch
    state: SearchState | None = None  # a model-guided search's prior weight and target


@dataclass(frozen=True)
class Screening:
    """A step of a generation's screening in simulation (sim-screened's GA on predicted
    rates), which can take minutes before a real batch runs."""

    generation: int
    step: int
    steps: int
    simulations: int  # simulated in this generation's screening so far
    per_second: float | None  # their pace: simulations / seconds spent predicting
    best_predicted: float | None


@dataclass
class _Measured:
    point: Point
    config: Config
    rate: float | None  # the median of its search runs, as the objective counts them
    predicted: float | None  # the model's rate for it just before it was measured
    runs: list[RunResult] = field(default_factory=list)  # its search runs, in order
    io_rate: float | None = None  # the median of their I/O rates, what the model predicts


class CampaignEvaluator:
    def __init__(self, store: Store, campaign_id: int, spec: CampaignSpec, space: BoundSpace,
                 executor: Executor, model: Model | None = None,
                 on_progress: Callable[[Progress | Screening], None] | None = None) -> None:
        self.store, self.id, self.spec, self.space = store, campaign_id, spec, space
        self.executor, self.model = executor, model
        self.on_progress = on_progress or (lambda progress: None)
        self.measured: dict[str, _Measured] = {}
        #: the config (hash) of each measurement, in order: its first (``repetitions`` runs),
        #: then one more run per repeat
        self.order: list[str] = []
        self._batch: list[_Measured] = []
        self._next_generation = 0
        self._screening = (0, 0.0)  # this generation's simulations, and seconds predicting
        #: a model-guided search's last report: its target, and how it ended (None: none)
        self.state: SearchState | None = None
        #: each point's config and its hash: a search asks about the same points again and
        #: again (a population scored every step), and building and hashing a config costs
        #: more than simulating it from the cache
        self._configs: dict[Point, tuple[Config, str]] = {}
        self.stored = StoredRuns(store, campaign_id, executor.source)
        self.predictions = (Predictions(model, store, campaign_id, spec, self.stored)
                            if model is not None else None)

    # -- Evaluator ------------------------------------------------------------------------------

    def runs_left(self) -> int:
        return self.spec.real_budget - len(self.order)

    def is_measured(self, point: Point) -> bool:
        return self._config_of(point)[1] in self.measured

    def measure(self, points: Sequence[Point]) -> list[float | None]:
        """The points' median rates; the configs not measured yet run as one batch (within
        the budget: the points past it are not run, and BudgetExhausted is raised after)."""
        configs, keys = self._configs_of(points)
        new: dict[str, _Measured] = {}
        for point, config, key in zip(points, configs, keys, strict=True):
            if key in self.measured or key in new:
                continue
            if self.runs_left() - len(new) <= 0:
                self._measure_batch(new, [])
                raise BudgetExhausted
            predicted = self.predictions.known(key) if self.predictions else None
            new[key] = _Measured(point, config, None, predicted)
        self._measure_batch(new, [])
        return [self.measured[key].rate for key in keys]

    def repeat(self, points: Sequence[Point]) -> list[float | None]:
        """One more run of each measured point, as one batch within the budget."""
        _, keys = self._configs_of(points)
        again: list[str] = []
        for key in keys:
            if key not in self.measured:
                raise ValueError(f"config {key[:12]} is repeated before it was measured")
            if self.runs_left() - len(again) <= 0:
                self._measure_batch({}, again)
                raise BudgetExhausted
            again.append(key)
        self._measure_batch({}, again)
        return [self.measured[key].rate for key in keys]

    def runs_of(self, point: Point) -> list[float]:
        entry = self.measured.get(self._config_of(point)[1])
        return [] if entry is None else _rates(entry.runs, self.spec.objective)

    def predict(self, points: Sequence[Point]) -> list[float | None]:
        if self.predictions is None:
            return [None] * len(points)
        before, started = self.predictions.simulated, time.perf_counter()
        rates = self.predictions.rates(*self._configs_of(points))
        simulations, seconds = self._screening
        self._screening = (simulations + self.predictions.simulated - before,
                           seconds + time.perf_counter() - started)
        return rates

    def _config_of(self, point: Point) -> tuple[Config, str]:
        """The point's config and its hash."""
        found = self._configs.get(point)
        if found is None:
            config = self.space.config(point)
            found = self._configs[point] = (config, config_hash(config))
        return found

    def _configs_of(self, points: Sequence[Point]) -> tuple[list[Config], list[str]]:
        found = [self._config_of(point) for point in points]
        return [config for config, _ in found], [key for _, key in found]

    def screened(self, step: int, steps: int, best_predicted: float | None) -> None:
        simulations, seconds = self._screening
        self.on_progress(Screening(self._next_generation, step, steps, simulations,
                                   simulations / seconds if seconds > 0 else None,
                                   best_predicted))

    def recalibrate(self) -> None:
        observed = [(m.config, m.io_rate) for m in self.measured.values()
                    if m.io_rate is not None]
        if self.model is None or self.predictions is None or not observed:
            return
        self.predictions.on_calibration(recalibrate(
            self.model, self.store, self.id, self.stored, len(self.order), observed,
            self.batch_error()))

    def earlier_residuals(self) -> list[tuple[Config, float]]:
        if self.model is None:
            return []
        return earlier_residuals(self.store, self.id, self.spec.platform)

    def end_generation(self, generation: int, best_predicted: float | None = None,
                       state: SearchState | None = None) -> None:
        best = self.best()
        self.state = state or self.state
        self.on_progress(Progress(generation, len(self.order), self.spec.real_budget,
                                  best.rate if best else None, best_predicted,
                                  self.batch_error(), state))
        self._batch = []
        self._next_generation = generation + 1
        self._screening = (0, 0.0)

    def finish(self) -> None:
        """Report the runs of a generation the budget cut short."""
        if self._batch:
            self.end_generation(self._next_generation)

    # -- results --------------------------------------------------------------------------------

    def best(self) -> _Measured | None:
        ok = [m for m in self.measured.values() if m.rate is not None]
        return max(ok, key=lambda m: m.rate or 0.0) if ok else None

    def batch_error(self) -> float | None:
        """The model against the last batch's runs, on the region it simulates (their I/O
        rates, whatever the objective)."""
        return median_relative_error([m.predicted for m in self._batch],
                                     [m.io_rate for m in self._batch])

    # -- measuring ------------------------------------------------------------------------------

    def _measure_batch(self, new: Mapping[str, _Measured], again: Sequence[str]) -> None:
        """The search runs of a batch: each new config's ``repetitions`` and one more of each
        config in ``again``. Runs the store holds (by config and repetition) are reused, the
        missing ones run (all of the batch's at once on an executor that queues jobs); a
        config's rate is the median of its runs."""
        wanted = [(key, repetition, len(self.measured) + index)
                  for index, key in enumerate(new) for repetition in range(self.spec.repetitions)]
        taken = {key: len(self.measured[key].runs) for key in again}
        for key in again:
            wanted.append((key, taken[key], len(self.measured) + len(new)))
            taken[key] += 1
        entries = {**{key: self.measured[key] for key in again}, **new}
        try:
            results = self._search_runs(entries, wanted)
        except KeyboardInterrupt:  # the user stopped the campaign: what finished is measured
            self._keep_finished(new)
            raise
        self._add(new, again, [(key, result) for (key, _, _), result
                               in zip(wanted, results, strict=True)])

    def _add(self, new: Mapping[str, _Measured], again: Sequence[str],
             results: Sequence[tuple[str, RunResult]]) -> None:
        """A batch's configs measured: the new ones in order, each config's runs and rates."""
        entries = {**{key: self.measured[key] for key in again}, **new}
        for key, entry in new.items():
            self.measured[key] = entry
            self.order.append(key)
            self._batch.append(entry)
        self.order += again
        for key, result in results:
            entry = entries[key]
            entry.runs.append(result)
            entry.rate = _median(_rates(entry.runs, self.spec.objective))
            entry.io_rate = _median(_rates(entry.runs, "io"))

    def _keep_finished(self, new: Mapping[str, _Measured]) -> None:
        """The configs of an interrupted batch whose every repetition is stored, measured (a
        resumed campaign reuses the same runs)."""
        stored = StoredRuns(self.store, self.id, self.executor.source)
        finished: dict[str, _Measured] = {}
        results: list[tuple[str, RunResult]] = []
        for key, entry in new.items():
            rows = {row.repetition: row for row in stored.repetitions(key)}
            if all(repetition in rows for repetition in range(self.spec.repetitions)):
                finished[key] = entry
                results += [(key, rows[repetition].run_result())
                            for repetition in range(self.spec.repetitions)]
        self._add(finished, [], results)

    def _search_runs(self, entries: Mapping[str, _Measured],
                     wanted: Sequence[tuple[str, int, int]]) -> list[RunResult]:
        """The result of each (config hash, repetition, measured index): stored, or run."""
        found: dict[int, RunResult] = {}
        missing: list[tuple[int, PlannedRun]] = []
        for position, (key, repetition, measured_index) in enumerate(wanted):
            stored = {row.repetition: row for row in self.stored.repetitions(key)}
            if repetition in stored:
                found[position] = stored[repetition].run_result()
            else:
                missing.append((position, self._planned(
                    entries[key].config, repetition, {"measured_index": measured_index})))
        ran = self._run_all([run for _, run in missing])
        found.update((position, result) for (position, _), (result, _)
                     in zip(missing, ran, strict=True))
        return [found[position] for position in range(len(wanted))]

    def run_and_store(self, config: Config, repetition: int,
                      details: Mapping[str, Any]) -> tuple[RunResult, int]:
        """One real run of ``config``, in the store the moment it exists; with its id there."""
        [(result, evaluation_id)] = self._run_all([self._planned(config, repetition, details)])
        return result, evaluation_id

    def _planned(self, config: Config, repetition: int,
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


def open_campaign(store: Store, campaign_id: int, parts: CampaignParts,
                  on_progress: Callable[[Progress | Screening], None] | None = None
                  ) -> CampaignEvaluator:
    """The campaign of ``parts`` as stored under ``campaign_id``, ready to run or resume."""
    if parts.space is None:
        raise ValueError("a campaign's space is built once its program's workload is known")
    return CampaignEvaluator(store, campaign_id, parts.spec, parts.space, parts.executor,
                             parts.model, on_progress)


def run_campaign(campaign: CampaignEvaluator) -> None:
    settings = strategy_settings(campaign.spec.strategy, campaign.spec.settings)
    run_strategy(campaign.spec.strategy, campaign, campaign.spec.seed, settings)
    campaign.finish()


def _rates(runs: Sequence[RunResult], objective: Objective) -> list[float]:
    return [rate for run in runs if run.ok and (rate := run.rate_for(objective))]


def _median(rates: Sequence[float]) -> float | None:
    return statistics.median(rates) if rates else None

