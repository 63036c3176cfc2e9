"""The tuning config's schema: the keys, their types and bounds, where each may appear.

The schema (``data/config-schema.yaml``) is the single definition of the keys; the interposer's
C key table is generated from it by ``interposer/gen_key_table.py``, which reuses
:func:`load_schema` and :meth:`Key.expected`, so both sides phrase errors the same way. Reading
and validating a config is iotwin.config.validation, writing it iotwin.config.dumping, what
applies to one file or dataset iotwin.config.resolution.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.core import paths
from iotwin.core.units import format_size, parse_size
from iotwin.core.yaml_files import read_shipped
from iotwin.formats.bounds import Bound, load_bounds


class SchemaError(ValueError):
    """config-schema.yaml itself is malformed (a build or test failure, not a user's error)."""


#: what iosim does with a key: reads it, or declares it not modelled (``{not_modelled: why}``)
IOSIM_READS = "read"


@dataclass(frozen=True)
class Key:
    """One key of the schema, with its type and bounds."""

    name: str
    type: str
    min: int | None = None
    max: int | None = None
    multiple_of: int | None = None
    bounds: Bound | None = None  # its kind in data/bounds.yaml (int, size: itself; int-list: items)
    values: tuple[str, ...] = ()
    hint: str | None = None
    mca: str | None = None  # the Open MPI MCA parameter it sets
    required: bool = False
    exclusive_with: str | None = None
    fields: dict[str, Key] = field(default_factory=dict)
    increasing: str | None = None  # a record-list's field whose values increase entry by entry
    last: dict[str, str] = field(default_factory=dict)  # a record-list's last entry: field: word
    first_only: bool = False  # a record-list's field only its first entry may set
    expected_phrase: str | None = None
    doc: str = ""
    iosim: str | None = None  # IOSIM_READS, or why iosim does not model the key

    def expected(self) -> str:
        """What a valid value looks like, as error messages say it ("expected <this>")."""
        if self.expected_phrase:
            return self.expected_phrase
        if self.type == "int":
            return _int_phrase(self.min, self.max)
        if self.type == "size":
            words = "".join(f", or {word}" for word in self.values)
            return _size_phrase(self.min, self.max, self.multiple_of) + words
        if self.type == "enum":
            return "one of " + ", ".join(self.values)
        if self.type == "record":
            return "a mapping with keys " + ", ".join(self.fields)
        if self.type == "record-list":
            return "a non-empty list of mappings with keys " + ", ".join(self.fields)
        return _TYPE_PHRASES[self.type]


_TYPE_PHRASES = {
    "bool": "true or false",
    "string": "a string",
    "string-map": "a mapping of names to strings",
    "int-list": "a list of positive integers",
}
#: the types whose values are integers, each bounded by a kind of the bounds table
_BOUNDED_TYPES = ("int", "size", "int-list")


def _int_phrase(low: int | None, high: int | None) -> str:
    if low is not None and low == high:
        return str(low)
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low is not None:
        return f"an integer >= {low}"
    return "an integer"


def _size_phrase(low: int | None, high: int | None, multiple_of: int | None) -> str:
    at_most = f", at most {high} bytes" if high is not None else ""
    if multiple_of:
        return f"a size that is a multiple of {format_size(multiple_of)}{at_most}"
    if low:
        return (f"a positive size such as 4MiB{at_most}" if low == 1
                else f"a size of at least {low}{at_most}")
    return f"a size such as 4MiB{at_most}"


@dataclass(frozen=True)
class Scope:
    """Where keys may appear: the top level, a `files` entry, or a `datasets` entry."""

    name: str
    keys: dict[str, Key]
    blocks: tuple[str, ...] = ()
    lists: dict[str, str] = field(default_factory=dict)  # list key -> scope of its entries
    inline: str | None = None  # a block whose keys sit directly in this scope


@dataclass(frozen=True)
class Schema:
    blocks: dict[str, dict[str, Key]]  # in the order they are applied to a file
    scopes: dict[str, Scope]

    def allowed_keys(self, scope: Scope) -> list[str]:
        inline = list(self.blocks[scope.inline]) if scope.inline else []
        return [*scope.keys, *scope.blocks, *scope.lists, *inline]


def schema_path() -> Path:
    return paths.data_dir() / "config-schema.yaml"


@functools.lru_cache(maxsize=1)
def load_schema(path: Path | None = None) -> Schema:
    raw = read_shipped(path or schema_path())  # `kinds`: merged by YAML itself
    bounds = load_bounds()
    blocks = {name: _keys(spec, bounds, f"blocks.{name}") for name, spec in raw["blocks"].items()}
    scopes = {name: _scope(name, spec, bounds) for name, spec in raw["document"].items()}
    return Schema(blocks, scopes)


def _keys(specs: dict[str, dict[str, Any]], bounds: dict[str, Bound], where: str,
          in_block: bool = True) -> dict[str, Key]:
    return {name: _key(name, spec, bounds, f"{where}.{name}", in_block)
            for name, spec in specs.items()}


def _key(name: str, spec: dict[str, Any], bounds: dict[str, Bound], where: str,
         in_block: bool) -> Key:
    """A key, its range the narrower of its own ``min``/``max`` and its kind's."""
    kind = _kind(spec, bounds, where)
    low, high = _size_bound(spec.get("min")), _size_bound(spec.get("max"))
    if kind is not None and spec["type"] != "int-list":
        low = int(kind.min) if low is None else max(low, int(kind.min))
        high = int(kind.max) if high is None else min(high, int(kind.max))
    return Key(
        name=name,
        type=spec["type"],
        min=low,
        max=high,
        multiple_of=_size_bound(spec.get("multiple_of")),
        bounds=kind,
        values=tuple(spec.get("values", ())),
        hint=spec.get("hint"),
        mca=spec.get("mca"),
        required=bool(spec.get("required", False)),
        exclusive_with=spec.get("exclusive_with"),
        fields=_keys(spec.get("fields", {}), bounds, where, in_block),
        increasing=spec.get("increasing"),
        last=dict(spec.get("last", {})),
        first_only=bool(spec.get("first_only", False)),
        expected_phrase=spec.get("expected"),
        doc=spec.get("doc", ""),
        iosim=_iosim_decision(spec, where) if in_block else None,
    )


def _kind(spec: dict[str, Any], bounds: dict[str, Bound], where: str) -> Bound | None:
    if spec["type"] not in _BOUNDED_TYPES:
        return None
    if spec.get("bounds") not in bounds:
        raise SchemaError(f"config-schema.yaml: {where}: an {spec['type']} key needs `bounds:` "
                          f"naming a kind of bounds.yaml, got {spec.get('bounds')!r}")
    return bounds[spec["bounds"]]


def _iosim_decision(spec: dict[str, Any], where: str) -> str:
    """Every key says whether iosim reads it, so that a new key cannot be a silent no-op in the
    simulator: ``iosim: read`` or ``iosim: {not_modelled: <why>}``."""
    decision = spec.get("iosim")
    if decision == IOSIM_READS:
        return IOSIM_READS
    if isinstance(decision, dict) and set(decision) == {"not_modelled"} and decision[
            "not_modelled"]:
        return str(decision["not_modelled"])
    raise SchemaError(f"config-schema.yaml: {where}: says neither `iosim: read` nor "
                      f"`iosim: {{not_modelled: <why>}}` (decide what iosim does with it)")


def _size_bound(value: int | str | None) -> int | None:
    if value is None or isinstance(value, int):
        return value
    return parse_size(value)


def _scope(name: str, spec: dict[str, Any], bounds: dict[str, Bound]) -> Scope:
    keys = _keys(spec.get("keys", {}), bounds, f"document.{name}", in_block=False)
    return Scope(name=name, keys=keys,
                 blocks=tuple(spec.get("blocks", ())), lists=dict(spec.get("lists", {})),
                 inline=spec.get("inline"))
