"""The workload format (sim-models/WORKLOAD.md): load, validate, write, and ask a kernel for it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from iotwin import paths
from iotwin.errors import UserError
from iotwin.yaml_files import read_yaml

# keep_open and access_elements: WORKLOAD.md's replication extensions (optional, ignorable)
_FILE_KEYS = {"name", "role", "mode", "groups", "api", "create", "compute_before_s", "write_calls",
              "flushes", "keep_open", "datasets"}
_DATASET_KEYS = {"name", "element_bytes", "element_type", "decomposition", "chunk_dims", "transfer",
                 "access_elements"}
_CHOICES = {"role": ("checkpoint", "visualisation", "other"),
            "mode": ("shared", "per-rank", "groups"),
            "api": ("hdf5", "mpiio", "posix"), "write_calls": ("per-dataset", "one-call"),
            "transfer": ("collective", "independent")}


def _fail(source: str, path: str, message: str) -> UserError:
    return UserError(f"{source}: {path}: {message}")


def _positive_int(value: Any, source: str, path: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(source, path, f"expected an integer >= {minimum}, got {value!r}")
    return value


def _int_list(value: Any, source: str, path: str, minimum: int = 1) -> list[int]:
    if not isinstance(value, list) or not value:
        raise _fail(source, path, f"expected a non-empty list of integers, got {value!r}")
    return [_positive_int(v, source, f"{path}[{i}]", minimum) for i, v in enumerate(value)]


def _check_keys(node: Any, allowed: set[str], source: str, path: str) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise _fail(source, path, "expected a mapping")
    unknown = sorted(set(node) - allowed)
    if unknown:
        raise _fail(source, f"{path}.{unknown[0]}", "unknown key")
    for key, choices in _CHOICES.items():
        if key in node and node[key] not in choices:
            raise _fail(source, f"{path}.{key}",
                        f"expected one of {', '.join(choices)}, got {node[key]!r}")
    return node


def _check_decomposition(node: Any, source: str, path: str) -> int:
    """Validates a decomposition; returns its number of writers."""
    _check_keys(node, {"grid", "block", "dims", "extents"}, source, path)
    if "grid" not in node:
        raise _fail(source, f"{path}.grid", "missing")
    grid = _int_list(node["grid"], source, f"{path}.grid")
    forms = [k for k in ("block", "dims", "extents") if k in node]
    if len(forms) != 1:
        raise _fail(source, path, "needs exactly one of block, dims, extents")
    form = forms[0]
    if form == "extents":
        lists = node["extents"]
        if not isinstance(lists, list) or len(lists) != len(grid):
            raise _fail(source, f"{path}.extents", "one list per grid axis")
        for a, axis in enumerate(lists):
            if len(_int_list(axis, source, f"{path}.extents[{a}]", 0)) != grid[a]:
                raise _fail(source, f"{path}.extents[{a}]", f"expected {grid[a]} entries")
    elif len(_int_list(node[form], source, f"{path}.{form}", 0)) != len(grid):
        raise _fail(source, f"{path}.{form}", "one extent per grid axis")
    writers = 1
    for g in grid:
        writers *= g
    return writers


def _check_file(node: Any, ranks: int, source: str, path: str) -> None:
    _check_keys(node, _FILE_KEYS, source, path)
    for key in ("name", "datasets"):
        if key not in node:
            raise _fail(source, f"{path}.{key}", "missing")
    mode = node.get("mode", "shared")
    writers = {"shared": ranks, "per-rank": 1}.get(mode, 0)
    if mode == "groups":
        groups = _positive_int(node.get("groups"), source, f"{path}.groups")
        if ranks % groups:
            raise _fail(source, f"{path}.groups", f"{groups} does not divide {ranks} ranks")
        writers = ranks // groups
    if not isinstance(node["datasets"], list) or not node["datasets"]:
        raise _fail(source, f"{path}.datasets", "expected a non-empty list")
    for d, dataset in enumerate(node["datasets"]):
        dpath = f"{path}.datasets[{d}]"
        _check_keys(dataset, _DATASET_KEYS, source, dpath)
        for key in ("name", "element_bytes", "decomposition"):
            if key not in dataset:
                raise _fail(source, f"{dpath}.{key}", "missing")
        _positive_int(dataset["element_bytes"], source, f"{dpath}.element_bytes")
        got = _check_decomposition(dataset["decomposition"], source, f"{dpath}.decomposition")
        if got != writers:
            raise _fail(source, f"{dpath}.decomposition.grid",
                        f"{got} writers, but the file has {writers}")
        if dataset.get("chunk_dims") is not None:
            _int_list(dataset["chunk_dims"], source, f"{dpath}.chunk_dims")


def validate_workload(data: Any, source: str) -> dict[str, Any]:
    """The workload itself if it is valid; UserError naming the key path otherwise."""
    if not isinstance(data, dict):
        raise UserError(f"{source}: not a workload (expected a mapping)")
    _check_keys(data, {"iotwin_workload", "name", "source", "ranks", "ranks_per_node", "files"},
                source, "workload")
    ranks = _positive_int(data.get("ranks"), source, "ranks")
    if "ranks_per_node" in data:
        _positive_int(data["ranks_per_node"], source, "ranks_per_node")
    files = data.get("files")
    if not isinstance(files, list) or not files:
        raise _fail(source, "files", "expected a non-empty list")
    for i, node in enumerate(files):
        _check_file(node, ranks, source, f"files[{i}]")
    return data


def load_workload(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    return validate_workload(read_yaml(path, "workload"), str(path))


def dump_workload(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def kernel_workload(kernel: str, ranks: int, args: Sequence[str]) -> dict[str, Any]:
    """The workload a kernel run would write, from the kernel's own ``--describe``."""
    binary = paths.kernel_binary(kernel)
    command = [str(binary), "--describe", "--ranks", str(ranks), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UserError(f"{kernel} --describe failed: {done.stderr.strip() or done.stdout.strip()}")
    text = done.stdout.strip()
    try:
        data = json.loads(text) if text.startswith("{") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise UserError(f"{kernel} --describe printed no workload: {error}") from error
    return validate_workload(data, f"{kernel} --describe")
