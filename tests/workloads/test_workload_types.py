"""The workload's static types (iotwin.workloads.types) are generated from its schema, as the
config's are: each record of data/workload-schema.yaml is a TypedDict with exactly its keys,
the required ones required."""

from __future__ import annotations

from typing import Required, get_origin, get_type_hints

from iotwin.formats.typegen import class_name
from iotwin.workloads import typegen, types
from iotwin.workloads.workload import validate_workload, workload_schema


def test_workload_types_are_generated_from_the_schema() -> None:
    """iotwin.workloads.types is what `python -m iotwin.workloads.typegen` writes."""
    assert typegen.OUTPUT.read_text() == typegen.render()


def test_each_record_is_a_typed_dict_of_its_keys() -> None:
    schema = workload_schema()
    for record, fields in schema.records.items():
        name = "Workload" if record == schema.root else "Workload" + class_name(record)
        hints = get_type_hints(getattr(types, name), include_extras=True)
        assert list(hints) == list(fields), record
        assert {key for key, hint in hints.items() if get_origin(hint) is Required} == {
            key for key, field in fields.items() if field.required}, record


def test_validate_workload_returns_the_document_it_checked() -> None:
    document = {"iotwin_workload": 1, "ranks": 2, "files": [
        {"name": "a.h5", "datasets": [{"name": "/x", "element_bytes": 8,
                                       "decomposition": {"grid": [2], "block": [4]}}]}]}
    workload = validate_workload(document, "w.yaml")
    assert workload is document and workload["files"][0]["name"] == "a.h5"
