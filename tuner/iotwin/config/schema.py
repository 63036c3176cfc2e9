"""The tuning config: load, validate, write, and resolve what applies to one file or dataset.

The schema (``data/config-schema.yaml``) is the single definition of the keys; the interposer's
C key table is generated from it by ``interposer/gen_key_table.py``, which reuses
:func:`load_schema` and :meth:`Key.expected`, so both sides phrase errors the same way.

YAML is read as every format's text is (iotwin.core.yaml_files): YAML 1.2 core-schema
scalars (plain ``true`` / ``false`` booleans, plain decimal digits integers, everything else a
string), as the C side (libyaml) resolves them, so ``010`` or ``yes`` cannot mean one thing to
the validator and another to the interposer. Every integer and size key names its kind in the
one bounds table (data/bounds.yaml): its C type's range and a sane maximum.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import yaml

from iotwin.config import rules
from iotwin.config.types import Config
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.text import CONTROL
from iotwin.core.units import format_size, parse_size
from iotwin.core.yaml_files import parse_document, read_document
from iotwin.formats.bounds import Bound, load_bounds
from iotwin.formats.records import describe, key_text

#: blocks of settings, in the order they are applied to a file (openmpi: to the process that
#: opens it, from the top level only)
BLOCKS = ("openmpi", "lustre", "mpiio", "hdf5", "dataset")


class ConfigError(UserError):
    """A tuning config that cannot be used; the message names the file and the key path."""


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
    blocks: dict[str, dict[str, Key]]
    scopes: dict[str, Scope]

    def allowed_keys(self, scope: Scope) -> list[str]:
        inline = list(self.blocks[scope.inline]) if scope.inline else []
        return [*scope.keys, *scope.blocks, *scope.lists, *inline]


def schema_path() -> Path:
    return paths.data_dir() / "config-schema.yaml"


@functools.lru_cache(maxsize=1)
def load_schema(path: Path | None = None) -> Schema:
    raw = yaml.safe_load((path or schema_path()).read_text())  # `kinds`: merged by YAML itself
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


# --- reading YAML ------------------------------------------------------------------------

def parse_yaml(text: str, source: str) -> Any:
    """A config's YAML text (iotwin.core.yaml_files: YAML 1.2 core scalars, no floats)."""
    return parse_document(text, source, floats=False, error=ConfigError)


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; sizes come back as byte counts."""
    path = Path(path)
    data = read_document(path, "config", floats=False, error=ConfigError)
    return validate_config(data, str(path))


#: the config that sets nothing: every setting at the site's default
DEFAULT_CONFIG: Config = {}


# --- validation ------------------------------------------------------------------------------

def validate_config(data: Any, source: str) -> Config:
    """The normalised config (sizes as ints), or ConfigError naming ``source`` and the key path:
    the one way to make a :class:`~iotwin.config.types.Config`."""
    if data is None:
        return {}
    return cast(Config, _Validator(load_schema(), source).scope(data, "top", ""))


def validate_value(block: str, name: str, value: Any, source: str, path: str) -> Any:
    """One key's value (``block.name``) as :func:`validate_config` normalises it, or
    ConfigError naming ``source`` and ``path``: for documents that hold a config key's value
    elsewhere (a platform sheet's default layout is a ``lustre.components``)."""
    return _Validator(load_schema(), source).value(load_schema().blocks[block][name], value, path)


def _control_character(text: str) -> int | None:
    """The first control character (iotwin.core.text.CONTROL) of a name, hint or pattern: none
    may hold one (a newline would make a false line of the report, a NUL cuts C text short);
    the interposer's reader checks the same set."""
    found = CONTROL.search(text)
    return ord(found.group()) if found else None


class _Validator:
    def __init__(self, schema: Schema, source: str) -> None:
        self.schema = schema
        self.source = source

    def fail(self, path: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: {path}: {message}" if path else
                           f"{self.source}: {message}")

    def mapping(self, value: Any, path: str, what: str) -> dict[Any, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected {what}, got {describe(value)}")
        return value

    def refuse_control(self, text: Any, path: str, what: str) -> None:
        code = _control_character(text) if isinstance(text, str) else None
        if code is not None:
            raise self.fail(path, f"{what} a control character (U+{code:04X})")

    def scope(self, data: Any, scope_name: str, path: str) -> dict[str, Any]:
        scope = self.schema.scopes[scope_name]
        mapping = self.mapping(data, path, "a mapping of config blocks")
        allowed = self.schema.allowed_keys(scope)
        result: dict[str, Any] = {}
        for name, value in mapping.items():
            self.refuse_control(name, path, "a key holds")
            key_path = _join(path, key_text(name))
            if name in scope.keys:
                result[name] = self.value(scope.keys[name], value, key_path)
            elif name in scope.blocks:
                result[name] = self.block(name, value, key_path)
            elif name in scope.lists:
                result[name] = self.entries(scope.lists[name], value, key_path)
            elif scope.inline and name in self.schema.blocks[scope.inline]:
                result[name] = self.value(self.schema.blocks[scope.inline][name], value, key_path)
            else:
                raise self.fail(key_path, "unknown key (expected one of " + ", ".join(allowed)
                                + ")")
        self.check_required(scope.keys, result, path)
        if scope.inline:
            self.check_exclusive(self.schema.blocks[scope.inline], result, path)
        return result

    def block(self, block: str, value: Any, path: str) -> dict[str, Any]:
        keys = self.schema.blocks[block]
        mapping = self.mapping(value, path, f"a mapping of {block} settings")
        result = self.keyed(keys, mapping, path)
        self.check_exclusive(keys, result, path)
        return result

    def keyed(self, keys: dict[str, Key], mapping: dict[Any, Any], path: str) -> dict[str, Any]:
        result = {}
        for name, value in mapping.items():
            self.refuse_control(name, path, "a key holds")
            key_path = _join(path, key_text(name))
            if name not in keys:
                raise self.fail(key_path, "unknown key (expected one of " + ", ".join(keys)
                                + ")")
            result[name] = self.value(keys[name], value, key_path)
        return result

    def entries(self, scope_name: str, value: Any, path: str) -> list[dict[str, Any]]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list of {scope_name} blocks, got {describe(value)}")
        return [self.scope(item, scope_name, f"{path}[{i}]") for i, item in enumerate(value)]

    def check_required(self, keys: dict[str, Key], result: dict[str, Any], path: str) -> None:
        for name, key in keys.items():
            if key.required and name not in result:
                raise self.fail(_join(path, name), "required key is missing")

    def check_exclusive(self, keys: dict[str, Key], result: dict[str, Any], path: str) -> None:
        for name, key in keys.items():
            other = key.exclusive_with
            if other and name in result and result.get(other, False) is not False:
                raise self.fail(_join(path, name), f"cannot be combined with {other}")

    def value(self, key: Key, value: Any, path: str) -> Any:
        self.refuse_control(value, path, "holds")
        checked = _CHECKS[key.type](self, key, value, path)
        if checked is _INVALID:
            raise self.fail(path, f"expected {key.expected()}, got {describe(value)}")
        return checked

    def check_int(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, int) or isinstance(value, bool) or not _in_bounds(key, value):
            return _INVALID
        return value

    def check_size(self, key: Key, value: Any, path: str) -> Any:
        if isinstance(value, str) and value in key.values:
            return value
        if isinstance(value, int | str) and not isinstance(value, bool):
            try:
                size = parse_size(value)
            except ValueError:
                return _INVALID
            if _in_bounds(key, size):
                return size
        return _INVALID

    def check_bool(self, key: Key, value: Any, path: str) -> Any:
        return value if isinstance(value, bool) else _INVALID

    def check_enum(self, key: Key, value: Any, path: str) -> Any:
        return value if isinstance(value, str) and value in key.values else _INVALID

    def check_string(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, str):
            return _INVALID
        if key.name == "match" and "[^" in value:
            raise self.fail(path, "'[^' means different things to fnmatch implementations; "
                            "write '[!' to negate a set")
        return value

    def check_string_map(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return _INVALID
        result = {}
        for name, item in value.items():
            self.refuse_control(name, path, "a key holds")
            self.refuse_control(item, _join(path, key_text(name)), "holds")
            if not isinstance(name, str) or isinstance(item, dict | list) or item is None:
                raise self.fail(_join(path, key_text(name)),
                                f"expected a string value, got {describe(item)}")
            result[name] = describe(item) if not isinstance(item, str) else item
        return result

    def check_int_list(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, list) or not value:
            return _INVALID
        for i, item in enumerate(value):
            self.refuse_control(item, f"{path}[{i}]", "holds")
            if not isinstance(item, int) or isinstance(item, bool) or item < 1:
                raise self.fail(f"{path}[{i}]",
                                f"expected a positive integer, got {describe(item)}")
            if key.bounds is not None and item > key.bounds.max:
                raise self.fail(f"{path}[{i}]", f"{item} is more than {key.bounds.max}, the "
                                f"largest {key.bounds.name.replace('_', ' ')}")
        return list(value)

    def check_record(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return _INVALID
        return self.keyed(key.fields, value, path)

    def check_record_list(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, list) or not value:
            return _INVALID
        records: list[dict[str, Any]] = []
        for i, item in enumerate(value):
            at = f"{path}[{i}]"
            mapping = self.mapping(item, at, "a mapping with keys " + ", ".join(key.fields))
            record = self.keyed(key.fields, mapping, at)
            self.check_required(key.fields, record, at)
            self.check_exclusive(key.fields, record, at)
            self.check_entry(key, records, record, at)
            records.append(record)
        for name, word in key.last.items():
            if records[-1].get(name) != word:
                raise self.fail(f"{path}[{len(records) - 1}].{name}",
                                f"expected {word} in the last entry, got "
                                f"{describe(records[-1].get(name))}")
        return records

    def check_entry(self, key: Key, before: list[dict[str, Any]], record: dict[str, Any],
                    path: str) -> None:
        """A record-list's entry against the ones before it: a first-only field, and its
        increasing field beyond the previous entry's (a word is beyond every size)."""
        for name, field_key in key.fields.items():
            if before and field_key.first_only and record.get(name, False) is not False:
                raise self.fail(_join(path, name), "only the first entry may set it")
        field_name = key.increasing
        if not before or field_name is None or field_name not in record:
            return
        previous, value = before[-1].get(field_name), record[field_name]
        if isinstance(previous, str):
            raise self.fail(f"{path[:path.rindex('[')]}[{len(before) - 1}].{field_name}",
                            f"only the last entry may be {previous}")
        if isinstance(value, int) and previous is not None and value <= previous:
            raise self.fail(_join(path, field_name), f"expected more than {previous} (the "
                            f"previous entry's {field_name}), got {value}")


_INVALID = object()
_CHECKS = {
    "int": _Validator.check_int,
    "size": _Validator.check_size,
    "bool": _Validator.check_bool,
    "enum": _Validator.check_enum,
    "string": _Validator.check_string,
    "string-map": _Validator.check_string_map,
    "int-list": _Validator.check_int_list,
    "record": _Validator.check_record,
    "record-list": _Validator.check_record_list,
}


def _in_bounds(key: Key, value: int) -> bool:
    return ((key.min is None or value >= key.min) and (key.max is None or value <= key.max)
            and (not key.multiple_of or value % key.multiple_of == 0))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# --- writing -------------------------------------------------------------------------------

def dump_config(data: Mapping[str, Any], source: str = "config") -> str:
    """YAML the interposer reads, sizes written with units (``4MiB``).

    ``data`` is validated first, so it may hold sizes in any form :func:`validate_config`
    accepts (``4194304``, ``"4MiB"``, ``"4m"``), and a bad one is a ConfigError naming
    ``source`` rather than a file the interposer would refuse.
    """
    normalised = validate_config(data, source)
    return yaml.safe_dump(_with_units(dict(normalised), "top"), sort_keys=False,
                          default_flow_style=False)


def _with_units(data: dict[str, Any], scope_name: str) -> dict[str, Any]:
    schema = load_schema()
    scope = schema.scopes[scope_name]
    inline = schema.blocks[scope.inline] if scope.inline else {}
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in scope.blocks:
            out[name] = _block_with_units(schema.blocks[name], value)
        elif name in scope.lists:
            out[name] = [_with_units(item, scope.lists[name]) for item in value]
        elif name in inline:
            out[name] = _value_with_units(inline[name], value)
        else:
            out[name] = value
    return out


def _block_with_units(keys: dict[str, Key], block: dict[str, Any]) -> dict[str, Any]:
    return {name: _value_with_units(keys[name], value) for name, value in block.items()}


def _value_with_units(key: Key, value: Any) -> Any:
    if key.type == "size" and not isinstance(value, str):
        text = format_size(value)
        return text if not text.isdigit() else value
    if key.type == "record":
        return _block_with_units(key.fields, value)
    if key.type == "record-list":
        return [_block_with_units(key.fields, record) for record in value]
    return value


# --- scoping -------------------------------------------------------------------------------

def matches(pattern: str, name: str) -> bool:
    """The one glob rule (iotwin.config.rules): fnmatch on the full name, or on its last ``/``
    component."""
    return rules.matches(pattern, name)


def literal_glob(name: str) -> str:
    """A ``match`` pattern that matches ``name`` only (its glob characters in brackets)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def with_dataset_settings(config: Config, targets: Iterable[tuple[str, str]],
                          settings: dict[str, Any]) -> Config:
    """``config`` with ``settings`` for each (file pattern, dataset pattern) of ``targets``:
    scoped entries after the config's own, so that they win."""
    files = [*copy.deepcopy(config.get("files", [])),
             *({"match": file_pattern, "datasets": [{"match": dataset_pattern, **settings}]}
               for file_pattern, dataset_pattern in targets)]
    out = {key: copy.deepcopy(value) for key, value in config.items() if key != "files"}
    return validate_config({**out, "files": files} if files else out, "scoped settings")


def matched_blocks(config: Config, file_name: str,
                   dataset_name: str | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, {block: settings}) for each part of ``config`` that applies, in applying order
    (the shared rules' iotwin.config.rules.applying, as the interposer takes them)."""
    yield "top", _blocks_in(config)
    files = config.get("files", [])
    for i, j in rules.applying([entry["match"] for entry in files],
                               [[scoped["match"] for scoped in entry.get("datasets", [])]
                                for entry in files], file_name, dataset_name):
        entry = files[i]
        if j is None:
            yield f"files[{i}]", _blocks_in(entry)
        else:
            settings = {k: v for k, v in entry["datasets"][j].items() if k != "match"}
            yield f"files[{i}].datasets[{j}]", {"dataset": settings}


def _blocks_in(scope: Mapping[str, object]) -> dict[str, Any]:
    """The blocks of settings a config or a ``files`` entry holds, by name."""
    return {block: scope[block] for block in BLOCKS if block in scope}


def resolve(config: Config, file_name: str,
            dataset_name: str | None = None) -> dict[str, dict[str, Any]]:
    """The settings for one file (and dataset): later blocks override earlier ones key by key."""
    schema = load_schema()
    settings: dict[str, dict[str, Any]] = {b: {} for b in BLOCKS}
    for _label, blocks in matched_blocks(config, file_name, dataset_name):
        for block, values in blocks.items():
            _merge(schema.blocks[block], settings[block], values)
    return settings


def _merge(keys: dict[str, Key], into: dict[str, Any], values: dict[str, Any]) -> None:
    for name, value in values.items():
        key = keys[name]
        if key.type in ("record", "string-map"):
            into[name] = {**into.get(name, {}), **value}
        else:
            into[name] = copy.deepcopy(value)
        if key.exclusive_with:
            into.pop(key.exclusive_with, None)


def mca_environment(config: Config) -> dict[str, str]:
    """``OMPI_MCA_<name>`` for every MCA parameter the config's top level sets: Open MPI reads
    them in MPI_Init, so they go into the launched program's environment (MPICH ignores them)."""
    environment = {}
    blocks = _blocks_in(config)
    for block, keys in load_schema().blocks.items():
        for name, value in blocks.get(block, {}).items():
            if keys[name].mca is not None:
                environment[f"OMPI_MCA_{keys[name].mca}"] = str(value)
    return environment
