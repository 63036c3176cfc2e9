"""An experiment spec (experiments/*.yaml) read and checked: its platforms, workloads and
config entries (the format: iotwin.studies.experiment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.config.schema import load_schema
from iotwin.config.validation import validate_config
from iotwin.core.dotted import dotted_set
from iotwin.core.errors import UserError
from iotwin.core.run_records import Source, Target
from iotwin.core.text import printable
from iotwin.core.yaml_files import check_keys, read_yaml
from iotwin.model.sheet_schema import record_schema, required
from iotwin.studies.experiment.search import SearchSpec

STUDIES = ("default-vs-tuned", "partial-tuning", "sensitivity", "scaling", "convergence")
SOURCES: tuple[Source, ...] = ("sim", "twin", "real")
ENTRY_KINDS = ("config", "search", "from", "sweep", "campaign")

#: its records' keys, which are required and the bounds of its counts: data/experiment-schema.yaml
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
    path = Path(path)
    data = read_yaml(path, "experiment")
    return parse_experiment(data, str(path))


def parse_experiment(data: Any, source: str) -> ExperimentSpec:
    """The spec in ``data``; UserError naming ``source`` and the key path of what is wrong."""
    _check_keys(data, "top", source, "")
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
        repetitions=_count(data.get("repetitions", 1), "top", "repetitions", source,
                           "repetitions"),
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
                search_spec(entry, workload).searched_space(workload.fixed)
            except UserError as error:
                raise UserError(f"{spec.source_file}: workloads[{j}].fixed: {error}") from None


def _per_node(data: Any, platforms: list[str], source: str) -> dict[str, int]:
    if not isinstance(data, dict):
        raise UserError(f"{source}: ranks_per_node: expected a mapping platform -> ranks")
    for platform, count in data.items():
        if platform not in platforms:
            raise UserError(f"{source}: ranks_per_node.{platform}: not one of the platforms")
        _count(count, "workload", "ranks", source, f"ranks_per_node.{platform}")
    return dict(data)


def _workload(data: Any, source: str, where: str) -> WorkloadSpec:
    _check_keys(data, "workload", source, where)
    args = data.get("args", [])
    if not isinstance(args, list):
        raise UserError(f"{source}: {where}.args: expected a list of arguments")
    fixed = data.get("fixed", {})
    if not isinstance(fixed, dict):
        raise UserError(f"{source}: {where}.fixed: expected a mapping space parameter -> value")
    return WorkloadSpec(kernel=_string(data["kernel"], source, f"{where}.kernel"),
                        ranks=_count(data["ranks"], "workload", "ranks", source, f"{where}.ranks"),
                        args=tuple(str(a) for a in args), label=str(data.get("label", "")),
                        fixed=dict(fixed))


def _entries(items: list[Any], source: str) -> tuple[ConfigEntry, ...]:
    entries: list[ConfigEntry] = []
    for i, data in enumerate(items):
        where = f"configs[{i}]"
        _check_keys(data, "entry", source, where)
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
        _check_keys(body, "sweep", source, f"{where}.sweep")
        _config_keys(body["key"], source, f"{where}.sweep.key")
        values = _list(body["values"], source, f"{where}.sweep.values")
        base = _mapping(body.get("base"), source, f"{where}.sweep.base")
        validate_config(base, f"{source}: {where}.sweep.base")
        for value in values:  # every swept config must be valid
            validate_config(set_dotted(base, body["key"], value),
                            f"{source}: {where}.sweep ({body['key']}={value})")
        return {"key": body["key"], "values": values, "base": base}
    body = data["campaign"]
    _check_keys(body, "campaign", source, f"{where}.campaign")
    return {"strategy": str(body["strategy"]), "space": str(body["space"]),
            "budget": _count(body["budget"], "campaign", "budget", source,
                             f"{where}.campaign.budget"),
            "seeds": [_whole(seed, source, f"{where}.campaign.seeds[{i}]") for i, seed in
                      enumerate(_list(body.get("seeds", [0]), source, f"{where}.campaign.seeds"))],
            "truth_seed": _whole(body.get("truth_seed", 0), source,
                                 f"{where}.campaign.truth_seed"),
            "repetitions": _count(body.get("repetitions", 1), "campaign", "repetitions", source,
                                  f"{where}.campaign.repetitions"),
            "settings": _mapping(body.get("settings"), source, f"{where}.campaign.settings"),
            "fixed": _mapping(body.get("fixed"), source, f"{where}.campaign.fixed")}


def _search_body(data: Any, source: str, where: str) -> dict[str, Any]:
    _check_keys(data, "search", source, where)
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
        return {"": _count(value, "search", "budget", source, where)}
    if not value:
        raise UserError(f"{source}: {where}: expected a positive integer or a mapping "
                        f"workload label -> positive integer")
    return {str(label): _count(count, "search", "budget", source, f"{where}.{label}")
            for label, count in value.items()}


def search_spec(entry: ConfigEntry, workload: WorkloadSpec) -> SearchSpec:
    """The search a `search` entry makes for one workload (its budget, per workload or one)."""
    budget = entry.body["budget"]
    if isinstance(budget, dict):
        budget = budget[workload.name]
    return SearchSpec.from_json({**entry.body, "budget": budget})


def _check_keys(data: Any, record: str, source: str, where: str) -> None:
    """``data`` a mapping of the schema's ``record`` keys, holding the required ones."""
    fields = record_schema(SCHEMA)[record]
    check_keys(data, list(fields), source, where, required(fields))


def _count(value: Any, record: str, key: str, source: str, where: str) -> int:
    """A count within the bounds the schema gives ``record``'s ``key``, checked before
    anything is sized by it (a budget of 10^12 searches for ever, 10^12 ranks exhaust
    memory)."""
    bound = record_schema(SCHEMA)[record][key].bounds
    assert bound is not None, f"experiment-schema.yaml: {record}.{key} has no bounds"
    return int(bound.check(value, f"{source}: {where}"))


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


def _config_keys(value: Any, source: str, where: str) -> None:
    """A config key as ``block.key`` (``mpiio.cb_buffer_size``), or a non-empty list of them:
    what a sweep sets."""
    keys = [value] if isinstance(value, str) else value
    blocks = load_schema().blocks
    if not isinstance(keys, list) or not keys or not all(
            isinstance(key, str) and key.partition(".")[2] in blocks.get(key.partition(".")[0],
                                                                         {})
            for key in keys):
        raise UserError(f"{source}: {where}: expected a config key as block.key (e.g. "
                        f"mpiio.cb_buffer_size) or a list of them, got "
                        f"{printable(repr(value))[:60]}")




def set_dotted(config: Mapping[str, Any], keys: str | list[str], value: Any) -> dict[str, Any]:
    """A copy of ``config`` with each ``mpiio.cb_buffer_size``-style key set to ``value``
    (to be validated)."""
    copy: dict[str, Any] = {k: (dict(v) if isinstance(v, dict) else v)
                            for k, v in config.items()}
    for key in [keys] if isinstance(keys, str) else keys:
        dotted_set(copy, str(key), value)
    return copy
