"""The schema of a spec sheet (data/sheet-schema.yaml): each key's kind, its bounds from the
one bounds table (data/bounds.yaml), and the rules between figures. What a sheet gives is
checked here, one error naming the sheet and the key; ``platform_sheet`` derives the model."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from iotwin.config.schema import load_schema
from iotwin.config.types import Config
from iotwin.config.validation import validate_config, validate_value
from iotwin.core import paths
from iotwin.core.errors import InputError
from iotwin.core.text import control_character
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import check_keys, read_yaml
from iotwin.formats.bounds import Bound, load_bounds, shown

_RATE = re.compile(r"^\s*(\d{1,20}(?:\.\d{1,20})?)\s*([kKmMgGtT]?)(b|B)\s*(?:/s|ps)\s*$")
_RATE_UNITS = {"": 1e-6, "k": 1e-3, "m": 1.0, "g": 1e3, "t": 1e6}  # -> MB/s


def sheet_error(origin: str, where: str, message: str) -> InputError:
    return InputError(origin, where, message)


@functools.cache
def read_sheet_defaults() -> dict[str, Any]:
    """data/platform-sheet-defaults.yaml, as read once (callers copy what they change)."""
    return read_yaml(paths.data_dir() / "platform-sheet-defaults.yaml", "spec sheet defaults")


@functools.cache
def link_rates() -> dict[str, float]:
    """One link's data rate in MB/s by technology name (EDR, HDR, OPA, Aries, Slingshot...):
    the sheet defaults' ``links``."""
    return {name: leaf["value"] for name, leaf in read_sheet_defaults()["links"].items()}


def parse_rate(value: Any) -> float:
    """MB/s (10^6 bytes/s) in ``value``: a number of MB/s, or a string with its unit as vendor
    sheets give it (``"54.5Gb/s"``, ``"5.35 GB/s"``, ``"200 Gbps"``; ``b`` bits, ``B`` bytes).
    ValueError if it is none, or not a finite rate of at least 0 (the bounds of each figure
    say whether 0, a "no limit", is one of its values)."""
    if isinstance(value, bool):
        raise ValueError(f"{shown(value)} is not a bandwidth")
    if isinstance(value, int | float):
        mbs = float(value) if isinstance(value, float) or value.bit_length() < 1000 else math.inf
        if not (math.isfinite(mbs) and mbs >= 0):
            raise ValueError(f"{shown(value)} is not a bandwidth: not a finite number of at "
                             f"least 0")
        return value
    if isinstance(value, str) and value.strip() in link_rates():
        return link_rates()[value.strip()]
    match = _RATE.match(value) if isinstance(value, str) else None
    if not match:
        raise ValueError(f"{shown(value)} is not a bandwidth (examples: 500 (MB/s), 5.35GB/s, "
                         f"200Gb/s, or a link: {', '.join(link_rates())})")
    number, prefix, unit = match.groups()
    mbs = float(number) * _RATE_UNITS[prefix.lower()] / (8 if unit == "b" else 1)
    return int(mbs) if mbs.is_integer() else mbs


# -- the schema ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SheetField:
    """One key of a sheet: how its value is written (``kind``), its bounds, whether a sheet
    must give it, its choices (an enum) and the tuning-config key it is checked as."""

    name: str
    kind: str
    bounds: Bound | None = None
    required: bool = False
    values: tuple[str, ...] = ()
    config: tuple[str, str] | None = None


@dataclass(frozen=True)
class Rule:
    """A figure (``key``, ``*`` any pool, directory or list item) at most another's."""

    key: str
    at_most: str
    why: str


@dataclass(frozen=True)
class SheetSchema:
    sections: dict[str, dict[str, SheetField]]
    records: dict[str, dict[str, SheetField]]  # pool, recommended, forbidden, directory
    pool_name: re.Pattern[str]
    pool_name_why: str
    rules: tuple[Rule, ...]
    model_figures: dict[str, str]  # a model's path -> the sheet key (section.key) giving it

    def field(self, key: str) -> SheetField:
        """The field of a sheet key as ``section.key`` (``pool.targets``: a pool's)."""
        section, _, name = key.partition(".")
        return {**self.sections, **self.records}[section][name]


@functools.cache
def sheet_schema() -> SheetSchema:
    raw = read_yaml(paths.data_dir() / "sheet-schema.yaml", "spec sheet schema")
    bounds = load_bounds()
    fields = {name: _fields(spec, bounds) for name, spec in raw["sections"].items()}
    records = {name: _fields(raw[name], bounds)
               for name in ("pool", "recommended", "forbidden", "directory")}
    return SheetSchema(fields, records, re.compile(raw["pool_name"]["pattern"]),
                       raw["pool_name"]["why"], tuple(Rule(**rule) for rule in raw["rules"]),
                       dict(raw["model_figures"]))


@functools.cache
def model_field(path: str) -> SheetField | None:
    """The sheet field a platform model's figure comes from (None: the sheet has none). Kept
    per path: every platform built from a sheet checks its ~100 figures, and a family
    calibration builds thousands."""
    schema = sheet_schema()
    parts = path.split(".")
    for pattern, key in schema.model_figures.items():
        wanted = pattern.split(".")
        if len(wanted) == len(parts) and all(
                w in ("*", p) for w, p in zip(wanted, parts, strict=True)):
            return schema.field(key)
    return None


@functools.cache
def record_schema(name: str) -> dict[str, dict[str, SheetField]]:
    """The records of the schema file ``data/<name>.yaml`` written in this schema's format
    (each record a mapping of keys to ``{kind, bounds, required, values}``): the one reader
    of every input format's schema that is written this way."""
    raw = read_yaml(paths.data_dir() / f"{name}.yaml", f"{name} schema")
    bounds = load_bounds()
    return {record: _fields(spec, bounds) for record, spec in raw.items() if record != "version"}


def check_record(origin: str, where: str, value: Any, fields: Mapping[str, SheetField]
                 ) -> dict[str, Any]:
    """A record whose keys are ``fields``, each value checked as its field says; one error
    naming the origin, the key and what is wrong else."""
    check_keys(value, fields, origin, where, required=required(fields))
    prefix = f"{where}." if where else ""
    return {key: check_value(origin, f"{prefix}{key}", item, fields[key])
            for key, item in value.items()}


def _fields(spec: Mapping[str, Any], bounds: Mapping[str, Bound]) -> dict[str, SheetField]:
    out = {}
    for name, field in spec.items():
        kind = bounds[field["bounds"]] if "bounds" in field else None
        if kind is not None and "min" in field:
            kind = replace(kind, min=field["min"])
        config = tuple(field["config"].split(".")) if "config" in field else None
        out[name] = SheetField(name, field["kind"], kind, bool(field.get("required")),
                               tuple(field.get("values", ())),
                               (config[0], config[1]) if config else None)
    if unknown := {f.kind for f in out.values()} - set(_KINDS):
        raise ValueError(f"sheet-schema.yaml: no kind {', '.join(sorted(unknown))}")
    return out


def required(fields: Mapping[str, SheetField]) -> tuple[str, ...]:
    return tuple(name for name, field in fields.items() if field.required)


# -- values by kind ------------------------------------------------------------------------------

Check = Callable[[str, str, Any, SheetField], Any]


def _within(origin: str, where: str, number: Any, field: SheetField, given: Any,
            unit: str = "") -> None:
    bound = field.bounds
    if bound is not None and not bound.contains(number):
        raise sheet_error(origin, where, bound.refusal(shown(given), unit))


def _count(origin: str, where: str, value: Any, field: SheetField) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise sheet_error(origin, where, f"expected a whole number, got {shown(value)}")
    _within(origin, where, value, field, value)
    return value


def _measured(origin: str, where: str, value: Any, field: SheetField,
              parse: Callable[[Any], Any], unit: str) -> Any:
    """A figure with a unit (a rate, a size) as ``parse`` reads it, within its bounds."""
    try:
        number = parse(value)
    except ValueError as error:
        raise sheet_error(origin, where, str(error)) from None
    _within(origin, where, number, field, value, unit)
    return number


def _rate(origin: str, where: str, value: Any, field: SheetField) -> float:
    """A bandwidth within the field's bounds (those of node_write_mbs start at 0: no limit)."""
    return _measured(origin, where, value, field, parse_rate, "MB/s")


def _size(origin: str, where: str, value: Any, field: SheetField) -> Any:
    _measured(origin, where, value, field, parse_size, "bytes")
    _as_config(origin, where, value, field)
    return value


def _as_config(origin: str, where: str, value: Any, field: SheetField) -> Any:
    """``value`` as the config key its field names normalises it (a size in bytes); one error
    naming it if that key refuses it."""
    if field.config is None:
        return value
    return validate_value(*field.config, value, origin, where)


def _stripes(origin: str, where: str, value: Any, field: SheetField) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < -1 or value == 0:
        raise sheet_error(origin, where, f"expected a stripe count >= 1 (or -1: every target), "
                                         f"got {shown(value)}")
    _as_config(origin, where, value, field)
    return value


def _seconds(origin: str, where: str, value: Any, field: SheetField) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value)):
        raise sheet_error(origin, where, f"expected seconds, got {shown(value)}")
    _within(origin, where, value, field, value, "s")
    return float(value)


def _enum(origin: str, where: str, value: Any, field: SheetField) -> str:
    if not isinstance(value, str) or value not in field.values:
        raise sheet_error(origin, where, f"expected one of {', '.join(field.values)}, "
                                         f"got {shown(value)}")
    return value


def _flag(origin: str, where: str, value: Any, field: SheetField) -> bool:
    if not isinstance(value, bool):
        raise sheet_error(origin, where, f"expected true or false, got {shown(value)}")
    return value


def text(origin: str, where: str, value: Any) -> str:
    """Non-empty text without control characters."""
    if not isinstance(value, str) or not value.strip():
        raise sheet_error(origin, where, f"expected text, got {shown(value)}")
    point = control_character(value)
    if point is not None:
        raise sheet_error(origin, where, f"holds the control character U+{point:04X}")
    return value


def _text(origin: str, where: str, value: Any, field: SheetField) -> str:
    return text(origin, where, value)


def pool_name(origin: str, where: str, value: Any) -> str:
    schema = sheet_schema()
    if not isinstance(value, str) or not schema.pool_name.fullmatch(value):
        raise sheet_error(origin, where, f"expected a pool name, {schema.pool_name_why}, "
                                         f"got {shown(value)}")
    return value


def _pool(origin: str, where: str, value: Any, field: SheetField) -> str:
    return pool_name(origin, where, value)


def _layout(origin: str, where: str, value: Any, field: SheetField) -> list[dict[str, Any]]:
    """A progressive file layout: a tuning config's ``lustre.components`` (config-schema.yaml,
    the one definition of a component's fields), kept as the sheet writes it."""
    _as_config(origin, where, value, replace(field, config=("lustre", "components")))
    for i, component in enumerate(value):
        if "pool" in component:
            pool_name(origin, f"{where}[{i}].pool", component["pool"])
    return list(value)


def _config_key(origin: str, where: str, value: Any, field: SheetField) -> str:
    """A tuning-config key as ``block.key`` (``lustre.stripe_count``)."""
    block, _, key = str(value).partition(".") if isinstance(value, str) else ("", "", "")
    if key not in load_schema().blocks.get(block, {}):
        raise sheet_error(origin, where, f"expected a config key as block.key "
                                         f"(e.g. lustre.stripe_count), got {shown(value)}")
    return str(value)


def _config_block(origin: str, where: str, value: Any, field: SheetField) -> str:
    """A tuning-config block's name (``lustre``): the config schema's blocks, not a copy."""
    blocks = load_schema().blocks
    if not isinstance(value, str) or value not in blocks:
        raise sheet_error(origin, where, f"expected one of {', '.join(blocks)}, "
                                         f"got {shown(value)}")
    return value


def _words(origin: str, where: str, value: Any, field: SheetField) -> list[str]:
    """A program's arguments: a list of text or whole numbers, as text."""
    if not isinstance(value, list):
        raise sheet_error(origin, where, f"expected a list of words, got {shown(value)}")
    for i, word in enumerate(value):
        if isinstance(word, bool) or not isinstance(word, str | int):
            raise sheet_error(origin, f"{where}[{i}]", f"expected a word, got {shown(word)}")
        if isinstance(word, str) and control_character(word) is not None:
            raise sheet_error(origin, f"{where}[{i}]", "holds a control character")
    return [str(word) for word in value]


def _fractions(origin: str, where: str, value: Any, field: SheetField) -> list[float]:
    """A non-empty list of numbers, each within the field's bounds."""
    if not isinstance(value, list) or not value:
        raise sheet_error(origin, where, f"expected a non-empty list, got {shown(value)}")
    for i, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int | float):
            raise sheet_error(origin, f"{where}[{i}]", f"expected a number, got {shown(item)}")
        _within(origin, f"{where}[{i}]", item, field, item)
    return [float(item) for item in value]


def _named(origin: str, where: str, value: Any, check: Check, field: SheetField
           ) -> dict[str, Any]:
    """A non-empty mapping of names (text) to values ``check`` reads."""
    if not isinstance(value, dict) or not value:
        raise sheet_error(origin, where, f"expected a non-empty mapping of names, got "
                                         f"{shown(value)}")
    out = {}
    for name, item in value.items():
        text(origin, f"{where} key", name)
        out[name] = check(origin, f"{where}.{name}", item, field)
    return out


def _counts(origin: str, where: str, value: Any, field: SheetField) -> dict[str, int]:
    return _named(origin, where, value, _count, field)


def _texts(origin: str, where: str, value: Any, field: SheetField) -> dict[str, str]:
    return _named(origin, where, value, _text, field)


def _listed(origin: str, where: str, value: Any, check: Check, field: SheetField
            ) -> list[Any]:
    """A non-empty list of values ``check`` reads."""
    if not isinstance(value, list) or not value:
        raise sheet_error(origin, where, f"expected a non-empty list, got {shown(value)}")
    return [check(origin, f"{where}[{i}]", item, field) for i, item in enumerate(value)]


def _names(origin: str, where: str, value: Any, field: SheetField) -> list[str]:
    return _listed(origin, where, value, _text, field)


def _count_list(origin: str, where: str, value: Any, field: SheetField) -> list[int]:
    return _listed(origin, where, value, _count, field)


def _choices(origin: str, where: str, value: Any, field: SheetField) -> list[str]:
    """One of the field's values, or a non-empty list of them."""
    return _listed(origin, where, value if isinstance(value, list) else [value], _enum, field)


def _config_blocks(origin: str, where: str, value: Any, field: SheetField) -> list[str]:
    """A config block's name, or a non-empty list of them."""
    return _listed(origin, where, value if isinstance(value, list) else [value], _config_block,
                   field)


def _config_keys(origin: str, where: str, value: Any, field: SheetField) -> list[str]:
    """A config key as ``block.key``, or a non-empty list of them."""
    if isinstance(value, list):
        return _listed(origin, where, value, _config_key, field)
    return [_config_key(origin, where, value, field)]


def _count_or_counts(origin: str, where: str, value: Any, field: SheetField
                     ) -> int | dict[str, int]:
    """One count, or a non-empty mapping of names to counts (one per workload, say)."""
    if isinstance(value, dict):
        return _counts(origin, where, value, field)
    return _count(origin, where, value, field)


def _list(origin: str, where: str, value: Any, field: SheetField) -> list[Any]:
    """A non-empty list whose items the reader checks (as records, say)."""
    return _listed(origin, where, value, _itself, field)


def _prose(origin: str, where: str, value: Any, field: SheetField) -> str:
    """Text over lines (a description): no control characters but line breaks and tabs."""
    text(origin, where, value.replace("\n", " ").replace("\t", " ")
         if isinstance(value, str) else value)
    return str(value).strip()


def _mapping(origin: str, where: str, value: Any, field: SheetField) -> dict[Any, Any]:
    """A mapping whose keys and values the reader checks (null: empty)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise sheet_error(origin, where, f"expected a mapping, got {shown(value)}")
    return dict(value)


def _config(origin: str, where: str, value: Any, field: SheetField) -> Config:
    """A tuning config (config-schema.yaml)."""
    return validate_config(value, origin, where)


def _itself(origin: str, where: str, value: Any, field: SheetField) -> Any:
    """A value its reader checks (a forbidden setting's: against its key's schema)."""
    return value


def _records_of(name: str) -> Check:
    def check(origin: str, where: str, value: Any, field: SheetField) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not value:
            raise sheet_error(origin, where, "expected a non-empty list")
        return [record(origin, f"{where}[{i}]", item, name) for i, item in enumerate(value)]
    return check


def _directories(origin: str, where: str, value: Any, field: SheetField
                 ) -> dict[str, dict[str, Any]]:
    """Per-directory default layouts (``lfs setstripe`` on a directory): a directory's name
    and the layout keys of a tuning config's ``lustre`` block its new files get."""
    if not isinstance(value, dict) or not value:
        raise sheet_error(origin, where, "expected a mapping of directory names to layouts")
    out = {}
    for name, layout in value.items():
        at = f"{where}.{shown(name) if not isinstance(name, str) else name}"
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,255}", name):
            raise sheet_error(origin, at, "expected a directory name (letters, digits, _.-)")
        out[name] = record(origin, at, layout, "directory")
    return out


def record(origin: str, where: str, value: Any, name: str) -> dict[str, Any]:
    """A record of the schema's ``name`` (a pool, a recommended layout, a forbidden setting,
    a directory's layout), each key checked as its field says."""
    out = check_record(origin, where, value, sheet_schema().records[name])
    if name == "forbidden":
        block, _, key = out["key"].partition(".")
        out["value"] = _as_config(origin, f"{where}.value", out["value"],
                                  SheetField("value", "any", config=(block, key)))
    return out


_KINDS: dict[str, Check] = {
    "count": _count, "rate": _rate, "size": _size, "seconds": _seconds, "stripes": _stripes,
    "enum": _enum, "flag": _flag, "text": _text, "pool": _pool, "layout": _layout,
    "recommended": _records_of("recommended"), "forbidden": _records_of("forbidden"),
    "directories": _directories, "config_key": _config_key, "any": _itself,
    "fractions": _fractions, "counts": _counts, "texts": _texts, "words": _words,
    "names": _names, "count_list": _count_list, "choices": _choices,
    "config_keys": _config_keys, "config_blocks": _config_blocks,
    "count_or_counts": _count_or_counts, "list": _list,
    "mapping": _mapping, "config": _config, "prose": _prose}


def check_value(origin: str, where: str, value: Any, field: SheetField) -> Any:
    """``value`` as its field's kind reads it, within its bounds; one error naming it else."""
    return _KINDS[field.kind](origin, where, value, field)


# -- rules between figures -----------------------------------------------------------------------

def check_rules(origin: str, values: Mapping[str, Any]) -> None:
    """Every rule of the schema over a sheet's values (``{section: {key: value}}``, the
    storage section's ``pools`` as ``{name: {key: value}}``)."""
    for rule in sheet_schema().rules:
        for where, stars, number, holder in _matches(values, rule.key.split("."), "", ()):
            if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
                continue  # -1 (every target) and 0 (the default) are not counts
            limit_at, limit = _limit(values, rule.at_most, stars, holder)
            if limit is not None and number > limit:
                raise sheet_error(origin, where, f"{number} is more than {limit_at} "
                                                 f"({limit}): {rule.why}")


def _matches(node: Any, parts: list[str], where: str, stars: tuple[str, ...]
             ) -> Iterator[tuple[str, tuple[str, ...], Any, Mapping[str, Any]]]:
    """(key path, what each ``*`` matched, value, the mapping holding it) of each match."""
    head, rest = parts[0], parts[1:]
    if head == "*":
        items = (node.items() if isinstance(node, dict) else
                 ((str(i), item) for i, item in enumerate(node)) if isinstance(node, list)
                 else ())
        for key, child in items:
            at = f"{where}[{key}]" if isinstance(node, list) else f"{where}.{key}"
            yield from _matches(child, rest, at, (*stars, key)) if rest else ()
        return
    if not isinstance(node, dict) or head not in node:
        return
    at = f"{where}.{head}" if where else head
    if rest:
        yield from _matches(node[head], rest, at, stars)
    else:
        yield at, stars, node[head], node


def _limit(values: Mapping[str, Any], at_most: str, stars: tuple[str, ...],
           holder: Mapping[str, Any]) -> tuple[str, Any]:
    """Where the limit of a match is and its value (None: the sheet does not give it)."""
    if at_most == "pool_targets":
        storage = values["storage"]
        pool = holder.get("pool") or values["defaults"].get("pool") or storage.get("pool")
        if pool in storage.get("pools", {}) and pool != storage.get("pool"):
            return f"storage.pools.{pool}.targets", storage["pools"][pool]["targets"]
        return "storage.targets", storage.get("targets")
    node: Any = values
    named = iter(stars)
    parts = [next(named) if part == "*" else part for part in at_most.split(".")]
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else None
    return ".".join(parts), node


def check_model_figures(origin: str, figures: Iterator[tuple[str, Mapping[str, Any]]]) -> None:
    """Each figure of a platform model (path, leaf) that a sheet key gives, within that key's
    kind and bounds: a hand-written model of 10^7 OSTs is refused as a sheet of them is."""
    for path, leaf in figures:
        field = model_field(path)
        if field is None:
            continue
        try:
            _check_figure(origin, path, leaf["value"], field)
        except InputError as error:
            source = str(leaf.get("source", ""))
            if not source.startswith("derived from "):
                raise
            raise InputError(error.file, error.field,  # the sheet keys it comes from
                             f"{error.problem}; {source}") from None


def _check_figure(origin: str, path: str, value: Any, field: SheetField) -> None:
    if field.kind == "size" and isinstance(value, float):
        if not math.isfinite(value):  # a fitted size: bytes as a number
            raise sheet_error(origin, path, f"expected a size, got {shown(value)}")
        _within(origin, path, value, field, value, "bytes")
    else:
        check_value(origin, path, value, field)
