"""A schema of records (data/workload-schema.yaml) and the walk a reader makes of a document
against it: unknown and missing keys, types, bounds and list lengths, then the document's normal
form (every default filled in). The C readers walk the same schema as a generated table
(formats/gen_workload_table.py, formats/record_check.c), in the same order, with the same
messages."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.core.text import control_character, key_text
from iotwin.core.yaml_files import read_shipped
from iotwin.formats.bounds import Bound, load_bounds

#: a field without a default
NO_DEFAULT: Any = object()

_LIST_NOUNS = {"int-list": "integers", "int-lists": "lists of integers", "string-list": "strings"}
_PLAIN_PHRASES = {"bool": "true or false", "string": "a string", "record": "a mapping"}


class DocumentError(Exception):
    """A document the schema refuses: where (a key path) and why."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def describe(value: Any) -> str:
    """A value as error messages quote it (the C readers print the same)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "a list"
    return "a mapping" if isinstance(value, dict) else json.dumps(str(value))


@dataclass(frozen=True)
class Field:
    """One key of a record, with its type, bounds and default."""

    name: str
    type: str
    bounds: Bound | None = None
    required: bool = False
    nullable: bool = False
    default: Any = NO_DEFAULT
    per_axis: bool = False
    values: tuple[str, ...] = ()
    record: str | None = None
    items: tuple[int, int | None] = (0, None)
    expected_phrase: str | None = None
    doc: str = ""

    def expected(self) -> str:
        """What a valid value looks like, as error messages say it ("expected <this>")."""
        if self.expected_phrase:
            return self.expected_phrase
        if self.type in ("int", "number") and self.bounds is not None:
            return self.bounds.phrase()
        if self.type == "enum":
            return "one of " + ", ".join(self.values)
        if self.type == "list":
            return _list_phrase(self.items, f"{self.record} mappings")
        if self.type in _LIST_NOUNS:
            return _list_phrase(self.items, _LIST_NOUNS[self.type])
        return _PLAIN_PHRASES[self.type]

    def item_expected(self) -> str:
        """What one integer of an int-list (or int-lists) must be (the C readers' tables
        hold it: formats/gen_workload_table.py)."""
        assert self.bounds is not None
        return self.bounds.phrase()


def _list_phrase(items: tuple[int, int | None], noun: str) -> str:
    low, high = items
    if high is None:
        return f"a non-empty list of {noun}" if low else f"a list of {noun}"
    if low == high:
        return f"a list of {low} {noun}"
    return f"a list of {low} to {high} {noun}"


@dataclass(frozen=True)
class RecordSchema:
    root: str
    records: dict[str, dict[str, Field]]


def load_record_schema(path: Path) -> RecordSchema:
    raw = read_shipped(path)
    bounds = load_bounds()
    records = {name: {key: _field(key, spec, bounds, f"{path.name}: {name}.{key}")
                      for key, spec in fields.items()}
               for name, fields in raw["records"].items()}
    for name, fields in records.items():
        for field in fields.values():
            if field.record is not None and field.record not in records:
                raise ValueError(f"{path.name}: {name}.{field.name}: no record {field.record}")
    return RecordSchema(raw["root"], records)


def _field(name: str, spec: dict[str, Any], bounds: dict[str, Bound], where: str) -> Field:
    kind = bounds[spec["bounds"]] if "bounds" in spec else None
    if spec["type"] in ("int", "number", "int-list", "int-lists") and kind is None:
        raise ValueError(f"{where}: a {spec['type']} field needs `bounds:`")
    low, high = spec.get("items", [0, None])
    default = spec.get("default", NO_DEFAULT)
    if spec["type"] == "number" and default is not NO_DEFAULT:
        default = float(default)
    return Field(name=name, type=spec["type"], bounds=kind, required=bool(spec.get("required")),
                 nullable=bool(spec.get("nullable")), default=default,
                 per_axis=bool(spec.get("per_axis")), values=tuple(spec.get("values", ())),
                 record=spec.get("record"), items=(int(low), high),
                 expected_phrase=spec.get("expected"), doc=str(spec.get("doc", "")))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class RecordChecker:
    """The structural walk: raises DocumentError at the first thing the schema refuses."""

    def __init__(self, schema: RecordSchema) -> None:
        self.schema = schema

    def check(self, document: Any) -> None:
        self.record(document, self.schema.root, "")

    def record(self, node: Any, record: str, path: str) -> None:
        if not isinstance(node, dict):
            raise DocumentError(path, f"expected a mapping, got {describe(node)}")
        fields = self.schema.records[record]
        for key in node:
            if not isinstance(key, str) or key not in fields:
                raise DocumentError(_join(path, key_text(key)),
                                    "unknown key (expected one of " + ", ".join(fields) + ")")
        for field in fields.values():
            where = _join(path, field.name)
            if field.name not in node:
                if field.required:
                    raise DocumentError(where, "missing")
                continue
            value = node[field.name]
            if value is None and field.nullable:
                continue
            self.value(field, value, where)

    def value(self, field: Field, value: Any, path: str) -> None:
        if self._valid(field, value, path):
            return
        if field.type in ("int", "number") and field.bounds and not field.expected_phrase:
            raise DocumentError(path, field.bounds.refusal(describe(value)))
        raise DocumentError(path, f"expected {field.expected()}, got {describe(value)}")

    def _valid(self, field: Field, value: Any, path: str) -> bool:
        kind = field.type
        if kind in ("int", "number"):
            number_ok = _is_int(value) or (kind == "number" and isinstance(value, float))
            return number_ok and field.bounds is not None and field.bounds.contains(value)
        if kind == "bool":
            return isinstance(value, bool)
        if kind == "enum":
            return isinstance(value, str) and value in field.values
        if kind == "string":
            return isinstance(value, str) and self.text(value, path)
        if kind == "record":
            assert field.record is not None
            self.record(value, field.record, path)
            return True
        if not isinstance(value, list) or not _length_ok(field.items, len(value)):
            return False
        for i, item in enumerate(value):
            self.item(field, item, f"{path}[{i}]")
        return True

    def item(self, field: Field, item: Any, path: str) -> None:
        if field.type == "list":
            assert field.record is not None
            self.record(item, field.record, path)
        elif field.type == "string-list":
            if not isinstance(item, str):
                raise DocumentError(path, f"expected a string, got {describe(item)}")
            self.text(item, path)
        elif field.type == "int-lists":
            if not isinstance(item, list) or not item:
                raise DocumentError(path, f"expected a non-empty list of integers, got "
                                    f"{describe(item)}")
            for i, number in enumerate(item):
                self.integer(field, number, f"{path}[{i}]")
        else:
            self.integer(field, item, path)

    def integer(self, field: Field, value: Any, path: str) -> None:
        assert field.bounds is not None
        if not (_is_int(value) and field.bounds.contains(value)):
            raise DocumentError(path, field.bounds.refusal(describe(value)))

    @staticmethod
    def text(value: str, path: str) -> bool:
        point = control_character(value)
        if point is not None and 0xD800 <= point <= 0xDFFF:
            raise DocumentError(path, f"holds the surrogate U+{point:04X} (YAML has no "
                                "surrogate pairs: write the character itself)")
        if point is not None:
            raise DocumentError(path, f"holds the control character U+{point:04X}")
        return True


def _length_ok(items: tuple[int, int | None], length: int) -> bool:
    low, high = items
    return length >= low and (high is None or length <= high)


def normal_form(schema: RecordSchema, document: dict[str, Any]) -> dict[str, Any]:
    """A checked document with every default filled in (per-axis ones excepted: they depend
    on a dataset, so the format's rules fill them), nulls dropped, numbers as floats."""
    return _normal_record(schema, document, schema.root)


def _normal_record(schema: RecordSchema, node: dict[str, Any], record: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in schema.records[record].values():
        value = node.get(field.name)
        if value is not None:
            out[field.name] = _normal_value(schema, field, value)
        elif field.default is not NO_DEFAULT and not field.per_axis:
            out[field.name] = field.default
    return out


def _normal_value(schema: RecordSchema, field: Field, value: Any) -> Any:
    if field.type == "record":
        assert field.record is not None
        return _normal_record(schema, value, field.record)
    if field.type == "list":
        assert field.record is not None
        return [_normal_record(schema, item, field.record) for item in value]
    if field.type == "number":
        return float(value)
    if field.type == "int-lists":
        return [list(axis) for axis in value]
    if isinstance(value, list):
        return list(value)
    return value
