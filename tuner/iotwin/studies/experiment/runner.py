"""The one runner of every experiment: each cell measured, stored as a row of the
experiment's campaign, reported as it goes."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core.dotted import dotted_get
from iotwin.core.errors import UserError
from iotwin.core.progress import say
from iotwin.core.run_records import RunResult, Source
from iotwin.store.database import Store
from iotwin.studies.experiment.measurers import CellResult, Measurer, measurer_for, sim_measurer
from iotwin.studies.experiment.published import load_published
from iotwin.studies.experiment.search import search
from iotwin.studies.experiment.spec import (
    ConfigEntry,
    ExperimentSpec,
    WorkloadSpec,
    search_spec,
    set_dotted,
)
from iotwin.tuning.pipeline import tune
from iotwin.tuning.spec import CampaignSpec, PipelineOptions, TuneSpec


@dataclass
class Experiment:
    """A running experiment: its spec, its campaign in the store, its results so far."""

    spec: ExperimentSpec
    store: Store
    measurer: Measurer
    predictor: Measurer  # the platform model, for `search` entries
    progress: TextIO | None = sys.stderr
    campaign_id: int = 0
    results: list[CellResult] = field(default_factory=list)

    def run(self) -> list[CellResult]:
        self.campaign_id = self.store.create_campaign(
            f"experiment {self.spec.name}", kind="experiment", spec=self.spec.to_json())
        self._say(f"experiment {self.spec.name}: campaign {self.campaign_id}, "
                  f"{len(self.spec.platforms)} platform(s) x {len(self.spec.workloads)} "
                  f"workload(s) x {len(self.spec.configs)} config entries, "
                  f"measured by {self.spec.measure}")
        published = load_published(self.spec.published)
        for platform in self.spec.platforms:
            for workload in self.spec.workloads:
                cells = self._run_cells(platform, workload)
                for cell in cells:
                    cell.published_mbs = published.get(
                        (platform.lower(), workload.kernel.lower(), workload.ranks, cell.label))
                self.results.extend(cells)
        return self.results

    def _run_cells(self, platform: str, workload: WorkloadSpec) -> list[CellResult]:
        found: dict[str, Config] = {}
        cells: list[CellResult] = []
        for entry in self.spec.configs:
            if entry.kind == "campaign":
                cells.extend(self._campaign_cells(platform, workload, entry))
                continue
            if entry.kind == "search":
                cell = self._search(platform, workload, entry)
                found[entry.label] = cell.config
                cells.append(cell)
                continue
            planned = self._plan(entry, found)
            if entry.kind == "config":
                found[entry.label] = planned[0][1]
            cells.extend(CellResult(platform, workload, entry.label, config, x=x)
                         for x, config in planned)
        pending = [c for c in cells if c.campaign_id is None]
        self._measure(platform, workload, pending)
        return cells

    def _plan(self, entry: ConfigEntry, found: Mapping[str, Config]
              ) -> list[tuple[Any, Config]]:
        body = entry.body
        if entry.kind == "config":
            return [(None, body["config"])]
        if entry.kind == "from":
            origin = found[body["from"]]
            return [(None, validate_config({k: v for k, v in origin.items() if k in body["keep"]},
                                           entry.label))]
        configs = [validate_config(set_dotted(body["base"], body["key"], value), entry.label)
                   for value in body["values"]]
        first_key = body["key"][0] if isinstance(body["key"], list) else body["key"]
        return [(dotted_get(config, first_key), config) for config in configs]

    def _search(self, platform: str, workload: WorkloadSpec, entry: ConfigEntry
                ) -> CellResult:
        """The cell of the best config the entry's search finds on the platform model; every
        simulation of the search is a row of the experiment (details: ``search``)."""

        def rates(configs: Sequence[Config]) -> list[float | None]:
            runs = self.predictor(platform, workload, configs)
            for config, repetitions in zip(configs, runs, strict=True):
                self._store(platform, workload, config, repetitions, source="sim",
                            details={"search": entry.label})
            return [r[0].rate_mbs if r[0].ok else None for r in runs]

        work: dict[str, Any] = {"ranks": workload.ranks}
        if platform in self.spec.ranks_per_node:
            work["ranks_per_node"] = self.spec.ranks_per_node[platform]
        found = search(platform, work, search_spec(entry, workload), rates, workload.fixed)
        self._say(f"  {platform} {workload.name} x{workload.ranks}: {entry.label}: "
                  f"{found.strategy}, {found.simulations} simulations, best predicted "
                  f"{found.tuned_mbs or 0:.1f} MB/s (default {found.default_mbs or 0:.1f})")
        return CellResult(platform, workload, entry.label, found.tuned_config,
                          tuning={"strategy": found.strategy,
                                  "simulations": found.simulations})

    def _campaign_cells(self, platform: str, workload: WorkloadSpec, entry: ConfigEntry
                        ) -> list[CellResult]:
        body, cells = entry.body, []
        for seed in body["seeds"]:
            search = CampaignSpec(
                ranks=workload.ranks, platform=platform, space=body["space"],
                strategy=body["strategy"], executor="twin", real_budget=body["budget"],
                kernel=workload.kernel, args=workload.args, seed=seed,
                repetitions=body["repetitions"], truth_seed=body["truth_seed"],
                settings=body["settings"], fixed=body["fixed"])
            # the search's best single run: no confirmation, no default-vs-tuned summary
            spec = TuneSpec(search, PipelineOptions(confirm=0, confirm_runs=0,
                                                    summary_repeat=0))
            result = tune(spec, self.store, progress=None,
                          name=f"experiment {self.campaign_id} {entry.label} seed {seed}")
            campaign, child = result.campaign, result.campaign_id
            best = result.confirmed[0] if result.confirmed else None
            run = RunResult("ok", rate_mbs=best.rate) if best and best.rate else RunResult(
                "failed", error="no run succeeded")
            cell = CellResult(platform, workload, entry.label, best.config if best else {},
                              runs=[run], x=seed, campaign_id=child)
            self._store(platform, workload, cell.config, [run], source="twin",
                        details={"cell": entry.label, "x": seed, "campaign": child,
                                 "summary": True})
            self._say(f"  {platform} {workload.name} x{workload.ranks}: {entry.label} seed "
                      f"{seed}: campaign {child}, best {cell.rate_mbs or 0:.1f} MB/s after "
                      f"{len(campaign.measured)} runs")
            cells.append(cell)
        return cells

    def _measure(self, platform: str, workload: WorkloadSpec, cells: list[CellResult]) -> None:
        # simulations go in one batch (forked in parallel); real runs one config at a time,
        # so that progress shows as they happen
        batch = max(len(cells), 1) if self.spec.measure == "sim" else 1
        for start in range(0, len(cells), batch):
            chunk = cells[start:start + batch]
            runs = self.measurer(platform, workload, [c.config for c in chunk])
            for cell, repetitions in zip(chunk, runs, strict=True):
                self._record(platform, workload, cell, repetitions)

    def _record(self, platform: str, workload: WorkloadSpec, cell: CellResult,
                repetitions: list[RunResult]) -> None:
        cell.runs = repetitions
        details = {"cell": cell.label, "x": cell.x}
        if cell.tuning:
            details["tuning"] = cell.tuning
        self._store(platform, workload, cell.config, repetitions, source=self.spec.measure,
                    details=details)
        rate = f"{cell.rate_mbs:.1f} MB/s" if cell.rate_mbs else "failed"
        x = f" {cell.x}" if cell.x is not None else ""
        self._say(f"  {platform} {workload.name} x{workload.ranks}: {cell.label}{x}: {rate}")

    def _store(self, platform: str, workload: WorkloadSpec, config: Config,
               repetitions: Sequence[RunResult], *, source: Source,
               details: Mapping[str, Any]) -> None:
        for repetition, run in enumerate(repetitions):
            self.store.add_run(self.campaign_id, workload.target, run, config=config,
                               platform=platform, source=source, repetition=repetition,
                               details={**details, "workload_label": workload.name})

    def _say(self, line: str) -> None:
        say(self.progress, line)


def run_experiment(spec: ExperimentSpec, store: Store, *, measurer: Measurer | None = None,
                   predictor: Measurer | None = None,
                   progress: TextIO | None = sys.stderr) -> Experiment:
    needs_model = any(e.kind == "search" for e in spec.configs) or spec.measure == "sim"
    experiment = Experiment(
        spec, store, measurer or measurer_for(spec),
        predictor or (sim_measurer(spec.ranks_per_node) if needs_model else _no_model),
        progress)
    experiment.run()
    return experiment


def _no_model(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
              ) -> list[list[RunResult]]:
    raise UserError("this experiment has no search entry: nothing to predict")
