"""What a tuning config sets for one file or dataset: its blocks in applying order (the rules
shared with the interposer), merged key by key; and the environment it makes for Open MPI."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from iotwin.config import rules
from iotwin.config.schema import Key, load_schema
from iotwin.config.types import Config
from iotwin.config.validation import validate_config


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
    return {block: scope[block] for block in load_schema().blocks if block in scope}


def resolve(config: Config, file_name: str,
            dataset_name: str | None = None) -> dict[str, dict[str, Any]]:
    """The settings for one file (and dataset): later blocks override earlier ones key by key."""
    schema = load_schema()
    settings: dict[str, dict[str, Any]] = {b: {} for b in schema.blocks}
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
