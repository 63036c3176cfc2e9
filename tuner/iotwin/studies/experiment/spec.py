"""An experiment spec (experiments/*.yaml) read and checked: its platforms, workloads and
config entries (the format: iotwin.studies.experiment)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from iotwin.config.validation import validate_config
from iotwin.core.dotted import dotted_set
from iotwin.core.errors import InputError, UserError
from iotwin.core.run_records import Source, Target
from iotwin.core.yaml_files import read_input
from iotwin.model.sheet_schema import check_record, record_schema
from iotwin.studies.experiment.search import SearchSpec

ENTRY_KINDS = ("config", "search", "from", "sweep", "campaign")

#: its records: their keys, kinds and bounds (data/experiment-schema.yaml)
SCHEMA = "experiment-schema"


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
    return read_input(Path(path), "experiment", parse_experiment)


def parse_experiment(data: Any, source: str) -> ExperimentSpec:
    """The spec in ``data``; InputError naming ``source`` and the key path of what is wrong
    (the schema, data/experiment-schema.yaml, checks each record's keys and values)."""
    top = _record(data, "top", source, "")
    measure = cast(Source, top.get("measure", "sim"))
    platforms = top["platforms"]
    if measure == "real" and platforms != ["local"]:
        raise InputError(source, "platforms", "`measure: real` runs on this machine: use "
                                              "platforms: [local]")
    spec = ExperimentSpec(
        name=top["name"], study=tuple(top["study"]), measure=measure,
        platforms=tuple(platforms),
        workloads=tuple(_workload(w, source, f"workloads[{i}]")
                        for i, w in enumerate(top["workloads"])),
        configs=_entries(top["configs"], source),
        description=top.get("description", ""),
        repetitions=top.get("repetitions", 1),
        published=top.get("published"),
        ranks_per_node=_per_node(top.get("ranks_per_node", {}), platforms, source),
        source_file=source)
    _check_searches(spec)
    return spec


def _record(data: Any, record: str, source: str, where: str) -> dict[str, Any]:
    """``data`` checked as the schema's ``record``: its values as their kinds read them."""
    return check_record(source, where, data, record_schema(SCHEMA)[record])


def _check_searches(spec: ExperimentSpec) -> None:
    """A budget given per workload names every workload label, and nothing else; a
    workload's fixed parameters are parameters of each space searched for it."""
    labels = {w.name for w in spec.workloads}
    for i, entry in enumerate(spec.configs):
        if entry.kind != "search":
            continue
        budget = entry.body["budget"]
        if isinstance(budget, dict) and set(budget) != labels:
            raise InputError(spec.source_file, f"configs[{i}].search.budget",
                             f"give one budget per workload label ({', '.join(sorted(labels))})"
                             f", got {', '.join(sorted(budget)) or 'none'}")
        for j, workload in enumerate(spec.workloads):
            try:
                search_spec(entry, workload).searched_space(workload.fixed)
            except UserError as error:
                raise InputError(spec.source_file, f"workloads[{j}].fixed", str(error)) from None


def _per_node(counts: dict[str, int], platforms: list[str], source: str) -> dict[str, int]:
    for platform in counts:
        if platform not in platforms:
            raise InputError(source, f"ranks_per_node.{platform}", "not one of the platforms")
    return counts


def _workload(data: Any, source: str, where: str) -> WorkloadSpec:
    workload = _record(data, "workload", source, where)
    return WorkloadSpec(kernel=workload["kernel"], ranks=workload["ranks"],
                        args=tuple(workload.get("args", ())), label=workload.get("label", ""),
                        fixed=workload.get("fixed", {}))


def _entries(items: list[Any], source: str) -> tuple[ConfigEntry, ...]:
    entries: list[ConfigEntry] = []
    for i, data in enumerate(items):
        where = f"configs[{i}]"
        entry = _record(data, "entry", source, where)
        kinds = [k for k in ENTRY_KINDS if k in entry]
        if len(kinds) != 1:
            raise InputError(source, where, f"give exactly one of {', '.join(ENTRY_KINDS)}")
        if entry["label"] in {e.label for e in entries}:
            raise InputError(source, f"{where}.label", f"{entry['label']!r} is used twice")
        entries.append(ConfigEntry(entry["label"], kinds[0],
                                   _entry_body(kinds[0], entry, entries, source, where)))
    return tuple(entries)


def _entry_body(kind: str, entry: Mapping[str, Any], earlier: list[ConfigEntry], source: str,
                where: str) -> dict[str, Any]:
    if kind != "from" and "keep" in entry:
        raise InputError(source, f"{where}.keep", "only with `from`")
    if kind == "config":
        return {"config": entry["config"]}
    if kind == "search":
        return _search_body(entry["search"], source, f"{where}.search")
    if kind == "from":
        origin = entry["from"]
        if origin not in {e.label for e in earlier if e.kind in ("search", "config")}:
            raise InputError(source, f"{where}.from", f"{origin!r} is not the label of an "
                                                      f"earlier config or search entry")
        if "keep" not in entry:
            raise InputError(source, f"{where}.keep", "missing (the keys kept from it)")
        return {"from": origin, "keep": entry["keep"]}
    if kind == "sweep":
        return _sweep_body(entry["sweep"], source, f"{where}.sweep")
    body = _record(entry["campaign"], "campaign", source, f"{where}.campaign")
    return {"strategy": body["strategy"], "space": body["space"], "budget": body["budget"],
            "seeds": body.get("seeds", [0]), "truth_seed": body.get("truth_seed", 0),
            "repetitions": body.get("repetitions", 1), "settings": body.get("settings", {}),
            "fixed": body.get("fixed", {})}


def _sweep_body(data: Any, source: str, where: str) -> dict[str, Any]:
    """A sweep: its key(s), values and base as written (each swept config must be valid)."""
    _record(data, "sweep", source, where)
    base = data.get("base") or {}
    for i, value in enumerate(data["values"]):
        validate_config(set_dotted(base, data["key"], value), source, f"{where}.values[{i}]")
    return {"key": data["key"], "values": data["values"], "base": base}


def _search_body(data: Any, source: str, where: str) -> dict[str, Any]:
    search = _record(data, "search", source, where)
    budget = search["budget"]
    # checked here with one of the budgets; each cell's search takes its workload's own
    spec = SearchSpec(
        space=search["space"], seed=search.get("seed", 0), strategy=search.get("strategy"),
        budget=min(budget.values()) if isinstance(budget, dict) else budget,
        sections=tuple(search.get("sections", ())))
    spec.check(source, where)
    return {**spec.to_json(), "budget": budget}


def search_spec(entry: ConfigEntry, workload: WorkloadSpec) -> SearchSpec:
    """The search a `search` entry makes for one workload (its budget, per workload or one)."""
    budget = entry.body["budget"]
    if isinstance(budget, dict):
        budget = budget[workload.name]
    return SearchSpec.from_json({**entry.body, "budget": budget})


def set_dotted(config: Mapping[str, Any], keys: str | list[str], value: Any) -> dict[str, Any]:
    """A copy of ``config`` with each ``mpiio.cb_buffer_size``-style key set to ``value``
    (to be validated)."""
    copy: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v)
                            for k, v in config.items()}
    for key in [keys] if isinstance(keys, str) else keys:
        dotted_set(copy, str(key), value)
    return copy
