"""Workload documents for the parity and fuzz tests: the corpus
(tests/formats/workload-corpus.yaml), real ones (the kernels' own descriptions, the
repository's workload files, Darshan logs replicated), and documents generated from each valid
one by the schema: every key given a wrong type or a value out of its bounds, removed, or
joined by one the schema lacks."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import darshan
from iotwin.core import paths
from iotwin.core.yaml_files import parse_document
from iotwin.formats.record_schema import Field, RecordSchema
from iotwin.workloads.replication.darshan_workload import workload_from_log
from iotwin.workloads.workload import kernel_workload, read_workload, workload_schema

CORPUS = Path(__file__).resolve().parents[1] / "formats" / "workload-corpus.yaml"
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

Path_ = list[str | int]


def key_path(text: str) -> Path_:
    """"files[0].datasets[1].name" as ["files", 0, "datasets", 1, "name"]."""
    return [key if key else int(index) for key, index in _STEP.findall(text)]


def path_text(steps: Path_) -> str:
    out = ""
    for step in steps:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def edited(document: Any, set_: dict[str, Any] | None = None,
           deleted: list[str] | None = None) -> Any:
    """A copy of ``document`` with values set (a list index one past its end appends) and
    keys deleted, each at a key path."""
    out = copy.deepcopy(document)
    for where, value in (set_ or {}).items():
        *parents, last = key_path(where)
        node = out
        for step in parents:
            node = node[step]
        if isinstance(node, list) and last == len(node):
            node.append(value)
        else:
            node[last] = value
    for where in deleted or []:
        *parents, last = key_path(where)
        node = out
        for step in parents:
            node = node[step]
        del node[last]
    return out


def corpus() -> tuple[dict[str, Any], dict[str, tuple[Any, str]]]:
    """(valid documents, invalid documents with the key path they are refused at)."""
    raw = parse_document(CORPUS.read_text(), str(CORPUS), floats=True)
    valid = raw["valid"]
    invalid = {}
    for name, case in raw["invalid"].items():
        document = case["document"] if "document" in case else edited(
            valid[case["base"]], case.get("set"), case.get("deleted"))
        invalid[name] = (document, case["at"])
    return valid, invalid


def real_documents() -> dict[str, Any]:
    """Workloads the project makes or keeps: valid ones every reader must accept alike."""
    root = paths.repo_root()
    out: dict[str, Any] = {
        "vpic-io-4": kernel_workload("vpic-io", 4, ["--particles", "4096"]),
        "vpic-io-16-independent": kernel_workload("vpic-io", 16, ["--particles", "4096",
                                                                  "--independent"]),
        "vorpal-io-8": kernel_workload("vorpal-io", 8, []),
        "gcrm-io-8": kernel_workload("gcrm-io", 8, []),
        "block3d-io-8-mpiio": kernel_workload("block3d-io", 8, ["--block", "6", "--method",
                                                                 "mpiio"]),
        "block3d-io-8-netcdf4": kernel_workload("block3d-io", 8, ["--block", "6", "--method",
                                                                   "netcdf4"], "openmpi"),
    }
    for path in sorted([*root.glob("experiments/landscape/*.workload.yaml"),
                        *root.glob("experiments/macsio/sim-*.yaml")]):
        out[path.name] = read_workload(path)
    logs = Path(darshan.__file__).parent / "examples" / "example_logs"
    for log in sorted([*logs.glob("shane_macsio_*.darshan"), logs / "ior_hdf5_example.darshan"]):
        out[log.name] = workload_from_log(log)
    return out


# --- documents generated from the schema ------------------------------------------------------

def fields_in(document: Any, schema: RecordSchema | None = None
              ) -> Iterator[tuple[Path_, Field, bool]]:
    """(key path, field, present) of every field of every record in ``document``."""
    schema = schema or workload_schema()
    yield from _fields(document, schema.root, [], schema)


def _fields(node: Any, record: str, where: Path_, schema: RecordSchema
            ) -> Iterator[tuple[Path_, Field, bool]]:
    for field in schema.records[record].values():
        present = isinstance(node, dict) and field.name in node
        yield [*where, field.name], field, present
        if not present or field.record is None:
            continue
        value = node[field.name]
        if field.type == "record" and isinstance(value, dict):
            yield from _fields(value, field.record, [*where, field.name], schema)
        elif field.type == "list" and isinstance(value, list):
            for i, item in enumerate(value):
                yield from _fields(item, field.record, [*where, field.name, i], schema)


def wrong_values(field: Field) -> list[Any]:
    """Values the schema refuses for ``field``: wrong types, out of bounds, bad lengths."""
    bounds = field.bounds
    kind = field.type
    if kind in ("int", "number"):
        assert bounds is not None
        out: list[Any] = ["1", True, [1]]
        out += [bounds.min - 1, bounds.max + 1] if kind == "int" else [-1.0, bounds.max * 2]
        return out + ([1.5] if kind == "int" else [])
    if kind == "bool":
        return [1, "true", None]
    if kind == "enum":
        return ["nonsense", 1, field.values[0].upper()]
    if kind == "string":
        return [5, "a\u0001b", ["a"]]
    if kind == "record":
        return [[], 5, "x"]
    if kind == "list":
        return [{}, [5]] + ([[]] if field.items[0] else [])
    if kind == "string-list":
        return [[5], "a"] + ([[]] if field.items[0] else [])
    assert bounds is not None
    items = [bounds.min - 1], [bounds.max + 1], ["1"], [1.5]
    if kind == "int-lists":
        return [[5], [[]], *([list(i)] for i in items)]
    low, high = field.items
    return [*items, *([[]] if low else []), *([[0] * (high + 1)] if high else []), 7]


#: documents larger than this (as JSON) are not mutated: the small ones hold every key
MUTATED_SIZE = 4000


def mutations(name: str, document: Any, limit: int = 20
              ) -> Iterator[tuple[str, Any, bool]]:
    """(name, document, must be refused) for documents made from a valid ``document`` (of at
    most MUTATED_SIZE bytes): every present field (at most ``limit`` of them, spread over the
    document) given each wrong value, a required one removed, an unknown key added to each
    record, an optional one removed (whatever the verdict: the readers must only agree)."""
    if len(json.dumps(document)) > MUTATED_SIZE:
        return
    present = [(where, field) for where, field, here in fields_in(document) if here]
    step = max(1, len(present) // limit)
    for where, field in present[::step]:
        at = path_text(where)
        for k, value in enumerate(wrong_values(field)):
            if value is None and field.nullable:
                continue
            yield f"{name}:{at}:wrong{k}", edited(document, {at: value}), True
        yield f"{name}:{at}:removed", edited(document, deleted=[at]), field.required
        parent = where[:-1]
        yield (f"{name}:{at}:unknown", edited(document, {path_text([*parent, "zz_unknown"]): 1}),
               True)
