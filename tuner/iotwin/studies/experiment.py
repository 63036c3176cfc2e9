"""Experiments: studies as data (experiments/*.yaml), run by one generic runner.

An experiment is the cross product of platforms x workloads x config entries; each product is
a *cell*. A config entry is one of:

- ``config: {...}``: a tuning config as given (``{}`` is the site / library default);
- ``search: {space, strategy?, budget, seed?, sections?}``: the best config the what-if
  search finds in simulation (iotwin.studies.experiment_search: exhaustive when the space fits the
  budget of simulations, else the genetic search), ``sections`` restricting it to the
  parameters of those config sections with every other key at its default (partial tuning);
- ``from: LABEL, keep: [lustre, mpiio, ...]``: the sections ``keep`` of the config an earlier
  entry found for the same platform and workload (the paper's partial tuning);
- ``sweep: {key, values, base}``: one cell per value of a dotted config key (or of a list of
  keys set to the same value) over ``base``;
- ``campaign: {strategy, space, budget, seeds, truth_seed, fixed}``: a tuning campaign per
  seed with the platform's twin as the machine (the convergence studies).

``measure`` says what decides a cell's rate: ``sim`` (the platform model), ``twin`` (the
platform's perturbed, noisy truth) or ``real`` (this machine, platform ``local``), with
``repetitions`` (the median counts). ``study`` names how a report draws the results (one
kind, or a list of kinds drawn one after the other).
Every evaluation is a row of the experiment's campaign (kind ``experiment``) in the store.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.core.dotted import dotted_get, dotted_set
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.core.progress import say
from iotwin.core.records import RunResult, Source, Target
from iotwin.core.yaml_files import check_keys, read_yaml
from iotwin.executors import make_executor
from iotwin.formats.bounds import load_bounds
from iotwin.formats.tables import count_field, decimal_number, shown, table_rows
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.store.database import Store
from iotwin.studies.experiment_search import SearchSpec, search
from iotwin.tuning.pipeline import tune
from iotwin.tuning.spec import CampaignSpec, PipelineOptions, TuneSpec
from iotwin.workloads.workload import kernel_workload

STUDIES = ("default-vs-tuned", "partial-tuning", "sensitivity", "scaling", "convergence")
SOURCES: tuple[Source, ...] = ("sim", "twin", "real")
ENTRY_KINDS = ("config", "search", "from", "sweep", "campaign")

_TOP_KEYS = {"name": True, "description": False, "study": True, "measure": False,
             "repetitions": False, "platforms": True, "workloads": True, "configs": True,
             "published": False, "ranks_per_node": False}
_WORKLOAD_KEYS = {"kernel": True, "ranks": True, "args": False, "label": False,
                  "fixed": False}
_ENTRY_KEYS = {"label": True, "config": False, "search": False, "from": False, "keep": False,
               "sweep": False, "campaign": False}
_SEARCH_KEYS = {"space": True, "strategy": False, "budget": True, "seed": False,
                "sections": False}
_SWEEP_KEYS = {"key": True, "values": True, "base": False}
_CAMPAIGN_KEYS = {"strategy": True, "space": True, "budget": True, "seeds": False,
                  "truth_seed": False, "repetitions": False, "settings": False,
                  "fixed": False}



# -- the spec -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class WorkloadSpec:
    kernel: str
    ranks: int
    args: tuple[str, ...] = ()
    label: str = ""
    #: space parameters pinned in every search for this workload (name -> value)
    fixed: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def target(self) -> Target:
        return Target(ranks=self.ranks, kernel=self.kernel, args=self.args)

    @property
    def name(self) -> str:
        return self.label or self.kernel


@dataclass(frozen=True)
class ConfigEntry:
    label: str
    kind: str  # one of ENTRY_KINDS
    body: dict[str, Any]


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    study: tuple[str, ...]
    platforms: tuple[str, ...]
    workloads: tuple[WorkloadSpec, ...]
    configs: tuple[ConfigEntry, ...]
    description: str = ""
    measure: Source = "sim"
    repetitions: int = 1
    published: str | None = None
    ranks_per_node: dict[str, int] = field(default_factory=dict)  # simulated placement
    source_file: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "study": list(self.study), "measure": self.measure,
                "repetitions": self.repetitions, "platforms": list(self.platforms),
                "workloads": [{"kernel": w.kernel, "ranks": w.ranks, "args": list(w.args),
                               "label": w.name, "fixed": w.fixed} for w in self.workloads],
                "ranks_per_node": self.ranks_per_node,
                "configs": [{"label": e.label, e.kind: e.body} for e in self.configs],
                "published": self.published, "file": self.source_file,
                "description": self.description}


def load_experiment(path: str | Path) -> ExperimentSpec:
    path = Path(path)
    data = read_yaml(path, "experiment")
    return parse_experiment(data, str(path))


def parse_experiment(data: Any, source: str) -> ExperimentSpec:
    """The spec in ``data``; UserError naming ``source`` and the key path of what is wrong."""
    _check_keys(data, _TOP_KEYS, source, "")
    studies = data["study"] if isinstance(data["study"], list) else [data["study"]]
    study = tuple(_choice(s, STUDIES, source, f"study[{i}]") for i, s in enumerate(studies))
    measure = _source(data.get("measure", "sim"), source)
    platforms = _string_list(data["platforms"], source, "platforms")
    if measure == "real" and platforms != ["local"]:
        raise UserError(f"{source}: platforms: `measure: real` runs on this machine: "
                        f"use platforms: [local]")
    workloads = _list(data["workloads"], source, "workloads")
    entries = _list(data["configs"], source, "configs")
    spec = ExperimentSpec(
        name=_string(data["name"], source, "name"), study=study, measure=measure,
        platforms=tuple(platforms),
        workloads=tuple(_workload(w, source, f"workloads[{i}]") for i, w in enumerate(workloads)),
        configs=_entries(entries, source),
        description=str(data.get("description", "")).strip(),
        repetitions=_positive(data.get("repetitions", 1), source, "repetitions"),
        published=data.get("published"),
        ranks_per_node=_per_node(data.get("ranks_per_node", {}), platforms, source),
        source_file=source)
    _check_searches(spec)
    return spec


def _check_searches(spec: ExperimentSpec) -> None:
    """A budget given per workload names every workload label, and nothing else; a
    workload's fixed parameters are parameters of each space searched for it."""
    labels = {w.name for w in spec.workloads}
    for i, entry in enumerate(spec.configs):
        if entry.kind != "search":
            continue
        budget = entry.body["budget"]
        if isinstance(budget, dict) and set(budget) != labels:
            raise UserError(f"{spec.source_file}: configs[{i}].search.budget: give one budget "
                            f"per workload label ({', '.join(sorted(labels))}), got "
                            f"{', '.join(sorted(budget)) or 'none'}")
        for j, workload in enumerate(spec.workloads):
            try:
                _search_spec(entry, workload).searched_space(workload.fixed)
            except UserError as error:
                raise UserError(f"{spec.source_file}: workloads[{j}].fixed: {error}") from None


def _per_node(data: Any, platforms: list[str], source: str) -> dict[str, int]:
    if not isinstance(data, dict):
        raise UserError(f"{source}: ranks_per_node: expected a mapping platform -> ranks")
    for platform, count in data.items():
        if platform not in platforms:
            raise UserError(f"{source}: ranks_per_node.{platform}: not one of the platforms")
        _bounded(count, "processes", source, f"ranks_per_node.{platform}")
    return dict(data)


def _workload(data: Any, source: str, where: str) -> WorkloadSpec:
    _check_keys(data, _WORKLOAD_KEYS, source, where)
    args = data.get("args", [])
    if not isinstance(args, list):
        raise UserError(f"{source}: {where}.args: expected a list of arguments")
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise UserError(f"{source}: {where}.fixed: expected a mapping space parameter -> value")
    return WorkloadSpec(kernel=_string(data["kernel"], source, f"{where}.kernel"),
                        ranks=_bounded(data["ranks"], "processes", source, f"{where}.ranks"),
                        args=tuple(str(a) for a in args), label=str(data.get("label", "")),
                        fixed=dict(fixed))


def _entries(items: list[Any], source: str) -> tuple[ConfigEntry, ...]:
    entries: list[ConfigEntry] = []
    for i, data in enumerate(items):
        where = f"configs[{i}]"
        _check_keys(data, _ENTRY_KEYS, source, where)
        kinds = [k for k in ENTRY_KINDS if k in data]
        if len(kinds) != 1:
            raise UserError(f"{source}: {where}: give exactly one of {', '.join(ENTRY_KINDS)}")
        label = _string(data["label"], source, f"{where}.label")
        if label in {e.label for e in entries}:
            raise UserError(f"{source}: {where}.label: {label!r} is used twice")
        entries.append(ConfigEntry(label, kinds[0],
                                   _entry_body(kinds[0], data, entries, source, where)))
    return tuple(entries)


def _entry_body(kind: str, data: Mapping[str, Any], earlier: list[ConfigEntry], source: str,
                where: str) -> dict[str, Any]:
    if kind != "from" and "keep" in data:
        raise UserError(f"{source}: {where}.keep: only with `from`")
    if kind == "config":
        return {"config": validate_config(data["config"], f"{source}: {where}.config")}
    if kind == "search":
        return _search_body(data["search"], source, f"{where}.search")
    if kind == "from":
        origin = data["from"]
        if origin not in {e.label for e in earlier if e.kind in ("search", "config")}:
            raise UserError(f"{source}: {where}.from: {origin!r} is not the label of an "
                            f"earlier config or search entry")
        keep = _string_list(data.get("keep"), source, f"{where}.keep")
        return {"from": origin, "keep": keep}
    if kind == "sweep":
        body = data["sweep"]
        _check_keys(body, _SWEEP_KEYS, source, f"{where}.sweep")
        values = _list(body["values"], source, f"{where}.sweep.values")
        base = _mapping(body.get("base"), source, f"{where}.sweep.base")
        for value in values:  # every swept config must be valid
            validate_config(set_dotted(base, body["key"], value),
                            f"{source}: {where}.sweep ({body['key']}={value})")
        return {"key": body["key"], "values": values, "base": base}
    body = data["campaign"]
    _check_keys(body, _CAMPAIGN_KEYS, source, f"{where}.campaign")
    return {"strategy": str(body["strategy"]), "space": str(body["space"]),
            "budget": _bounded(body["budget"], "evaluation_budget", source,
                               f"{where}.campaign.budget"),
            "seeds": [_whole(seed, source, f"{where}.campaign.seeds[{i}]") for i, seed in
                      enumerate(_list(body.get("seeds", [0]), source, f"{where}.campaign.seeds"))],
            "truth_seed": _whole(body.get("truth_seed", 0), source,
                                 f"{where}.campaign.truth_seed"),
            "repetitions": _positive(body.get("repetitions", 1), source,
                                     f"{where}.campaign.repetitions"),
            "settings": _mapping(body.get("settings"), source, f"{where}.campaign.settings"),
            "fixed": _mapping(body.get("fixed"), source, f"{where}.campaign.fixed")}


def _search_body(data: Any, source: str, where: str) -> dict[str, Any]:
    _check_keys(data, _SEARCH_KEYS, source, where)
    seed = _whole(data.get("seed", 0), source, f"{where}.seed")
    sections = data.get("sections")
    budgets = _budgets(data["budget"], source, f"{where}.budget")
    # checked here with one of the budgets; each cell's search takes its workload's own
    spec = SearchSpec(
        space=_string(data["space"], source, f"{where}.space"),
        budget=min(budgets.values()), seed=seed,
        strategy=None if data.get("strategy") is None else str(data["strategy"]),
        sections=() if sections is None else tuple(_string_list(sections, source,
                                                                f"{where}.sections")))
    spec.check(f"{source}: {where}")
    return {**spec.to_json(), "budget": data["budget"]}


def _budgets(value: Any, source: str, where: str) -> dict[str, int]:
    """Simulations a search may spend: one count, or a count per workload label."""
    if not isinstance(value, dict):
        return {"": _bounded(value, "evaluation_budget", source, where)}
    if not value:
        raise UserError(f"{source}: {where}: expected a positive integer or a mapping "
                        f"workload label -> positive integer")
    return {str(label): _bounded(count, "evaluation_budget", source, f"{where}.{label}")
            for label, count in value.items()}


def _search_spec(entry: ConfigEntry, workload: WorkloadSpec) -> SearchSpec:
    budget = entry.body["budget"]
    if isinstance(budget, dict):
        budget = budget[workload.name]
    return SearchSpec.from_json({**entry.body, "budget": budget})


def _check_keys(data: Any, keys: Mapping[str, bool], source: str, where: str) -> None:
    check_keys(data, list(keys), source, where, [k for k, required in keys.items() if required])


def _source(value: Any, source: str) -> Source:
    """``measure``: one of SOURCES."""
    for choice in SOURCES:
        if value == choice:
            return choice
    raise UserError(f"{source}: measure: {value!r} is not one of {', '.join(SOURCES)}")


def _choice(value: Any, choices: Sequence[str], source: str, where: str) -> str:
    if value not in choices:
        raise UserError(f"{source}: {where}: {value!r} is not one of {', '.join(choices)}")
    return str(value)


def _string(value: Any, source: str, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise UserError(f"{source}: {where}: expected a non-empty string")
    return value


def _list(value: Any, source: str, where: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise UserError(f"{source}: {where}: expected a non-empty list")
    return value


def _string_list(value: Any, source: str, where: str) -> list[str]:
    items = _list(value, source, where)
    for i, item in enumerate(items):
        _string(item, source, f"{where}[{i}]")
    return items


def _bounded(value: Any, kind: str, source: str, where: str) -> int:
    """An integer within the bounds table's ``kind``, checked before anything is sized by it
    (a budget of 10^12 searches for ever, 10^12 ranks exhaust memory)."""
    return int(load_bounds()[kind].check(value, f"{source}: {where}"))


def _whole(value: Any, source: str, where: str) -> int:
    """A seed: a whole number (1.5 is not one, nor true)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{source}: {where}: expected a whole number, got {value!r}")
    return value


def _mapping(value: Any, source: str, where: str) -> dict[str, Any]:
    """An optional mapping (absent or null: empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise UserError(f"{source}: {where}: expected a mapping, got {value!r}")
    return dict(value)


def _positive(value: Any, source: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{source}: {where}: expected a positive integer, got {value!r}")
    return value


def set_dotted(config: Mapping[str, Any], keys: str | list[str], value: Any) -> dict[str, Any]:
    """A copy of ``config`` with each ``mpiio.cb_buffer_size``-style key set to ``value``
    (to be validated)."""
    copy: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v)
                            for k, v in config.items()}
    for key in [keys] if isinstance(keys, str) else keys:
        dotted_set(copy, str(key), value)
    return copy


# -- measuring cells ----------------------------------------------------------------------------

@dataclass
class CellResult:
    platform: str
    workload: WorkloadSpec
    label: str
    config: Config
    runs: list[RunResult] = field(default_factory=list)
    x: Any = None  # the swept value, if any
    campaign_id: int | None = None
    published_mbs: float | None = None
    #: how a searched config was found: {"strategy": ..., "simulations": ...}
    tuning: dict[str, Any] | None = None

    @property
    def rates(self) -> list[float]:
        return [r.rate_mbs for r in self.runs if r.ok and r.rate_mbs]

    @property
    def rate_mbs(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None

    def row(self) -> dict[str, Any]:
        rates = self.rates
        return {"platform": self.platform, "workload": self.workload.name,
                "ranks": self.workload.ranks, "config": self.label,
                "x": "" if self.x is None else self.x,
                "rate_mbs": _rounded(self.rate_mbs),
                "rate_min_mbs": _rounded(min(rates)) if rates else "",
                "rate_max_mbs": _rounded(max(rates)) if rates else "",
                "runs": len(self.runs), "ok": len(rates),
                "published_mbs": "" if self.published_mbs is None else self.published_mbs,
                "campaign": "" if self.campaign_id is None else self.campaign_id,
                "strategy": (self.tuning or {}).get("strategy", ""),
                "simulations": (self.tuning or {}).get("simulations", ""),
                "settings": json.dumps(self.config, sort_keys=True)}


def _rounded(value: float | None) -> float | str:
    return "" if value is None else round(value, 3)


#: measures configs on (platform, workload): list of repetitions per config
Measurer = Callable[[str, WorkloadSpec, Sequence[Config]], list[list[RunResult]]]


def sim_measurer(ranks_per_node: Mapping[str, int] | None = None) -> Measurer:
    """Rates predicted by the platform model (one batch of simulations per call), with the
    ranks placed ``ranks_per_node[platform]`` per node where given. A simulation is
    deterministic: a config simulated before on the same platform and workload (the default,
    a search's best when its cell is measured) is looked up, not run again."""

    done: dict[tuple[str, WorkloadSpec, str], list[RunResult]] = {}

    def run(platform: str, workload: WorkloadSpec, configs: Sequence[Config]) -> None:
        work = kernel_workload(workload.kernel, workload.ranks, list(workload.args))
        if ranks_per_node and platform in ranks_per_node:
            work["ranks_per_node"] = ranks_per_node[platform]
        results = simulate(load_platform(platform), work, list(configs), jobs=2)
        for config, r in zip(configs, results, strict=True):
            done[(platform, workload, config_hash(config))] = [
                RunResult("ok", total_s=r.time_s, rate_mbs=r.rate_mbs, phases=dict(r.phases))
                if r.ok else RunResult("failed", error=r.error)]

    def measure(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
                ) -> list[list[RunResult]]:
        keys = [(platform, workload, config_hash(c)) for c in configs]
        new = {key: config for key, config in zip(keys, configs, strict=True)
               if key not in done}
        if new:
            run(platform, workload, list(new.values()))
        return [done[key] for key in keys]

    return measure


def executor_measurer(measure: str, repetitions: int, truth_seed: int = 0) -> Measurer:
    """Each config run ``repetitions`` times on the twin or on this machine."""
    executors: dict[str, Any] = {}

    def executor(platform: str) -> Any:
        if platform not in executors:
            name = "twin" if measure == "twin" else "local"
            executors[platform] = make_executor(name, platform, truth_seed=truth_seed)
        return executors[platform]

    def run(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
            ) -> list[list[RunResult]]:
        return [[executor(platform).run_once(workload.target, config, seed=rep)
                 for rep in range(repetitions)] for config in configs]

    return run


def measurer_for(spec: ExperimentSpec) -> Measurer:
    if spec.measure == "sim":
        return sim_measurer(spec.ranks_per_node)
    return executor_measurer(spec.measure, spec.repetitions)


# -- the runner ---------------------------------------------------------------------------------

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
        found = search(platform, work, _search_spec(entry, workload), rates, workload.fixed)
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


# -- published figures --------------------------------------------------------------------------

def published_path(name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() else paths.repo_root() / path


def load_published(name: str | None) -> dict[tuple[str, str, int, str], float]:
    """Published rates (MB/s) by (platform, kernel, cores, setting), lower-case names."""
    if not name:
        return {}
    path = published_path(name)
    found = {}
    for line, row in table_rows(path, _PUBLISHED_COLUMNS, "published figures"):
        if row["metric"] != "rate" or row["unit"] != "MB/s":
            continue
        where = f"{path}:{line}"
        rate = decimal_number(row["value"])
        bound = load_bounds()["io_rate"]
        if not bound.contains(rate):
            raise UserError(f"{where}: value: expected a rate from {bound.min:g} to "
                            f"{bound.max:g} MB/s, got {shown(row['value'])}")
        key = (row["platform"].lower(), row["kernel"].lower(),
               count_field(row["cores"], "processes", where, "cores"), row["setting"])
        found[key] = rate
    return found


#: the columns of a published figures table an experiment reads
_PUBLISHED_COLUMNS = ("platform", "kernel", "cores", "setting", "metric", "value", "unit")

