"""Python types generated from the formats' schemas: a ``TypedDict`` per record, so that a key
a schema gains is a key the type checker knows, and a key it loses is an error wherever it is
still read. What both generators share is here: the config's (``python -m
iotwin.config.typegen``, config/types.py, from its schema's blocks and scopes) and the
workload's (``python -m iotwin.workloads.typegen``, workloads/types.py, from the record schema
walked by :mod:`iotwin.formats.record_schema`). A test checks that each module is current.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from iotwin.formats.record_schema import Field, RecordSchema

#: what a record schema's field types are in Python (enum, record and list: from the field)
_RECORD_TYPES = {"int": "int", "number": "float", "bool": "bool", "string": "str",
                 "int-list": "list[int]", "int-lists": "list[list[int]]",
                 "string-list": "list[str]"}


def typed_dict(name: str, rows: Iterable[tuple[str, str, bool]], base: str = "TypedDict") -> str:
    """A ``TypedDict`` class of (key, annotation, required) rows, over ``base``'s keys (another
    such class's); the others may be absent."""
    lines = [f"class {name}({base}, total=False):"]
    for key, annotation, required in rows:
        lines.append(f"    {key}: {f'Required[{annotation}]' if required else annotation}")
    return "\n".join(lines)


def literal(values: Iterable[str]) -> str:
    return "Literal[" + ", ".join(json.dumps(value) for value in values) + "]"


def class_name(name: str) -> str:
    """``coll_metadata`` -> ``CollMetadata``."""
    return "".join(part.capitalize() for part in name.split("_"))


def module(header: str, classes: list[str]) -> str:
    """The generated module: its header (docstring and imports), then the classes."""
    return header.rstrip("\n") + "".join(f"\n\n\n{text}" for text in classes) + "\n"


def write(path: Path, text: str) -> int:
    path.write_text(text)
    print(f"wrote {path}")
    return 0


def record_types(schema: RecordSchema, prefix: str) -> list[str]:
    """A class per record of ``schema``, each after the records it holds: the root record is
    ``prefix``, the others ``prefix`` + their name (``WorkloadFile``)."""

    def name_of(record: str) -> str:
        return prefix if record == schema.root else prefix + class_name(record)

    classes: list[str] = []
    done: set[str] = set()

    def visit(record: str) -> None:
        if record in done:
            return
        done.add(record)
        fields = schema.records[record].values()
        for field in fields:
            if field.record is not None:
                visit(field.record)
        classes.append(typed_dict(name_of(record), (
            (field.name, _record_annotation(field, name_of), field.required)
            for field in fields)))

    visit(schema.root)
    return classes


def _record_annotation(field: Field, name_of: Callable[[str], str]) -> str:
    if field.type == "enum":
        annotation = literal(field.values)
    elif field.type in ("record", "list"):
        assert field.record is not None
        annotation = name_of(field.record)
        annotation = f"list[{annotation}]" if field.type == "list" else annotation
    else:
        annotation = _RECORD_TYPES[field.type]
    return f"{annotation} | None" if field.nullable else annotation
