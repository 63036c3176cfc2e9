"""The workload format (sim-models/WORKLOAD.md): load, validate, write, and ask a kernel for it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from iotwin.core.errors import UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI, select_flavour
from iotwin.core.yaml_files import read_yaml

# keep_open and access_elements: WORKLOAD.md's replication extensions (optional, ignorable)
# calls, dims, fill_time, alloc_time, fill_value: captured programs (WORKLOAD.md "Calls")
_FILE_KEYS = {"name", "role", "mode", "groups", "api", "create", "compute_before_s", "write_calls",
              "flushes", "keep_open", "datasets", "calls"}
_DATASET_KEYS = {"name", "element_bytes", "element_type", "decomposition", "chunk_dims", "transfer",
                 "access_elements", "dims", "fill_time", "alloc_time", "fill_value"}
_CALL_KEYS = {"write", "transfer", "compute_before_s", "selections", "flush", "repeat"}
_REPEAT_KEYS = {"times", "origin_step", "compute_between_s"}
_RUN_KEYS = {"ranks", "start", "start_step", "count", "stride", "block"}
_CHOICES = {"role": ("checkpoint", "visualisation", "other"),
            "mode": ("shared", "per-rank", "groups"),
            "api": ("hdf5", "netcdf4", "mpiio", "posix"),
            "write_calls": ("per-dataset", "one-call"),
            "transfer": ("collective", "independent"), "fill_time": ("ifset", "never", "alloc"),
            "alloc_time": ("early", "late", "incr", "default"),
            "fill_value": ("default", "user", "undefined")}


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


def session_writers(node: Mapping[str, Any], ranks: int, source: str = "workload",
                    path: str = "file") -> int:
    """How many ranks write one instance of a file session (a per-rank file: one)."""
    mode = node.get("mode", "shared")
    if mode != "groups":
        return {"shared": ranks, "per-rank": 1}[mode]
    groups = _positive_int(node.get("groups"), source, f"{path}.groups")
    if ranks % groups:
        raise _fail(source, f"{path}.groups", f"{groups} does not divide {ranks} ranks")
    return ranks // groups


def _dataset_dims(dataset: Mapping[str, Any], writers: int, source: str, path: str) -> list[int]:
    """Checks a dataset's shape (its decomposition, or `dims`); returns its extents."""
    if dataset.get("decomposition") is None:
        if "dims" not in dataset:
            raise _fail(source, f"{path}.dims", "missing (needed without a decomposition)")
        return _int_list(dataset["dims"], source, f"{path}.dims", 0)
    decomposition = dataset["decomposition"]
    got = _check_decomposition(decomposition, source, f"{path}.decomposition")
    if got != writers:
        raise _fail(source, f"{path}.decomposition.grid",
                    f"{got} writers, but the file has {writers}")
    dims = _decomposition_dims(decomposition)
    if "dims" in dataset and _int_list(dataset["dims"], source, f"{path}.dims", 0) != dims:
        raise _fail(source, f"{path}.dims", f"differs from the decomposition's extents {dims}")
    return dims


def _decomposition_dims(node: Mapping[str, Any]) -> list[int]:
    if "dims" in node:
        return list(node["dims"])
    if "extents" in node:
        return [sum(axis) for axis in node["extents"]]
    return [g * b for g, b in zip(node["grid"], node["block"], strict=True)]


def call_reach(call: Mapping[str, Any], index: int, rank: int) -> list[int]:
    """How far the ``index``-th selection of a well-formed ``call`` (its repetitions included)
    reaches along each of the ``rank`` axes of its dataset (0: nothing selected there)."""
    selection = call["selections"][index]
    if "grid" in selection:
        origin = selection.get("origin", [0] * rank)
        extents = _decomposition_dims({k: v for k, v in selection.items() if k != "origin"})
        repeat = call.get("repeat") or {}
        step = repeat.get("origin_step", [0] * rank)
        times = int(repeat.get("times", 1))
        return [max(o, o + (times - 1) * d) + e
                for o, d, e in zip(origin, step, extents, strict=True)]
    reach = [0] * rank
    for run in selection.get("runs") or []:
        reach = [max(r, x) for r, x in zip(reach, _run_reach(run, rank), strict=True)]
    return reach


def _run_reach(run: Mapping[str, Any], rank: int) -> list[int]:
    _, n, _ = run_ranks(run["ranks"])
    axes = {key: run.get(key, [default] * rank) for key, default
            in (("start", 0), ("start_step", 0), ("count", 1), ("stride", 1), ("block", 1))}
    return [0 if not (n and axes["count"][a] and axes["block"][a]) else
            axes["start"][a] + (n - 1) * axes["start_step"][a]
            + (axes["count"][a] - 1) * axes["stride"][a] + axes["block"][a]
            for a in range(rank)]


def _check_selection(node: Any, dims: list[int], writers: int, source: str, path: str) -> None:
    if isinstance(node, dict) and "grid" in node:
        origin = node.get("origin", [0] * len(dims))
        got = _check_decomposition({k: v for k, v in node.items() if k != "origin"}, source, path)
        if got != writers:
            raise _fail(source, f"{path}.grid", f"{got} writers, but the file has {writers}")
        reach = [o + e for o, e in zip(origin, _decomposition_dims(node), strict=True)]
        if any(r > d for r, d in zip(reach, dims, strict=True)):
            raise _fail(source, path, f"reaches {reach}, beyond the dataset's extents {dims}")
        return
    _check_keys(node, {"runs"}, source, path)
    for r, run in enumerate(node.get("runs") or []):
        _check_run(run, dims, writers, source, f"{path}.runs[{r}]")


def run_ranks(ranks: Sequence[int]) -> tuple[int, int, int]:
    """A run's ``ranks`` ([first, n] or [first, n, step]) as (first, n, step)."""
    first, n, step = (*ranks, 1) if len(ranks) == 2 else ranks
    return first, n, step


def _check_run(run: Any, dims: list[int], writers: int, source: str, path: str) -> None:
    _check_keys(run, _RUN_KEYS, source, path)
    ranks = run.get("ranks")
    if not isinstance(ranks, list) or len(ranks) not in (2, 3):
        raise _fail(source, f"{path}.ranks", "expected [first, n] or [first, n, step]")
    first, n, step = run_ranks(ranks)
    if n and first + (n - 1) * step >= writers:
        raise _fail(source, f"{path}.ranks", f"names a writer beyond the file's {writers}")
    axes = {key: run.get(key, [default] * len(dims)) for key, default
            in (("start", 0), ("start_step", 0), ("count", 1), ("stride", 1), ("block", 1))}
    for key, values in axes.items():
        if not isinstance(values, list) or len(values) != len(dims):
            raise _fail(source, f"{path}.{key}", f"one value per axis of the dataset ({len(dims)})")
    for a, (reach, extent) in enumerate(zip(_run_reach(run, len(dims)), dims, strict=True)):
        if reach > extent:
            raise _fail(source, path, f"reaches {reach} along axis {a}, beyond the extent {extent}")


def _check_calls(calls: Any, shapes: Mapping[str, list[int]], writers: int, source: str,
                 path: str) -> None:
    if not isinstance(calls, list):
        raise _fail(source, path, "expected a list")
    for c, call in enumerate(calls):
        where = f"{path}[{c}]"
        _check_keys(call, _CALL_KEYS, source, where)
        if call.get("flush"):
            continue
        names, selections = call.get("write"), call.get("selections")
        if not isinstance(names, list) or not names:
            raise _fail(source, f"{where}.write", "expected a non-empty list of dataset names")
        if not isinstance(selections, list) or len(selections) != len(names):
            raise _fail(source, f"{where}.selections", "expected one per dataset written")
        for k, (name, selection) in enumerate(zip(names, selections, strict=True)):
            if name not in shapes:
                raise _fail(source, f"{where}.write[{k}]", f"no dataset {name!r} in the session")
            _check_selection(selection, shapes[name], writers, source,
                             f"{where}.selections[{k}]")
            if "repeat" in call:
                _check_repeat(call["repeat"], selection, shapes[name], source, f"{where}.repeat")


def _check_repeat(node: Any, selection: Mapping[str, Any], dims: list[int], source: str,
                  path: str) -> None:
    """The last repetition of a regular selection moved by origin_step stays in the dataset."""
    _check_keys(node, _REPEAT_KEYS, source, path)
    times = _positive_int(node.get("times"), source, f"{path}.times")
    if "grid" not in selection:
        raise _fail(source, path, "only for regular (grid) selections")
    step = node.get("origin_step")
    if (not isinstance(step, list) or len(step) != len(dims)
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in step)):
        raise _fail(source, f"{path}.origin_step", f"one integer per axis ({len(dims)})")
    origin = selection.get("origin", [0] * len(dims))
    extents = _decomposition_dims({k: v for k, v in selection.items() if k != "origin"})
    for a, extent in enumerate(dims):
        last = origin[a] + (times - 1) * step[a]
        if min(origin[a], last) < 0 or max(origin[a], last) + extents[a] > extent:
            raise _fail(source, path, f"repetition {times - 1} leaves the dataset along axis {a}")


def inside_run_directory(name: str) -> bool:
    """Whether a file name stays inside the directory a run writes in: relative, no ``..``
    (a workload must not write over files elsewhere when it is replayed)."""
    pure = PurePosixPath(name)
    return bool(name) and not pure.is_absolute() and ".." not in pure.parts


def _check_file(node: Any, ranks: int, source: str, path: str) -> None:
    _check_keys(node, _FILE_KEYS, source, path)
    for key in ("name", "datasets"):
        if key not in node:
            raise _fail(source, f"{path}.{key}", "missing")
    if not isinstance(node["name"], str) or not inside_run_directory(node["name"]):
        raise _fail(source, f"{path}.name", f"{node['name']!r} lies outside the directory the "
                    f"run writes in (a file name is relative, without '..')")
    writers = session_writers(node, ranks, source, path)
    if not isinstance(node["datasets"], list) or not node["datasets"]:
        raise _fail(source, f"{path}.datasets", "expected a non-empty list")
    shapes: dict[str, list[int]] = {}
    for d, dataset in enumerate(node["datasets"]):
        dpath = f"{path}.datasets[{d}]"
        _check_keys(dataset, _DATASET_KEYS, source, dpath)
        for key in ("name", "element_bytes"):
            if key not in dataset:
                raise _fail(source, f"{dpath}.{key}", "missing")
        _positive_int(dataset["element_bytes"], source, f"{dpath}.element_bytes")
        shapes[dataset["name"]] = _dataset_dims(dataset, writers, source, dpath)
        if dataset.get("chunk_dims") is not None:
            _int_list(dataset["chunk_dims"], source, f"{dpath}.chunk_dims")
    if "calls" in node:
        _check_calls(node["calls"], shapes, writers, source, f"{path}.calls")


#: the MPIs iosim models, a workload's `mpi` (absent: mpich): ROMIO for MPICH, and
#: OMPIO for Open MPI unless the config's openmpi.io is romio321
MPIS = (DEFAULT_MPI, "openmpi")


def workload_mpi(workload: Mapping[str, Any]) -> str:
    """The MPI the workload runs under (its `mpi`; MPICH when it does not say)."""
    return str(workload.get("mpi", DEFAULT_MPI))


def validate_workload(data: Any, source: str) -> dict[str, Any]:
    """The workload itself if it is valid; UserError naming the key path otherwise."""
    if not isinstance(data, dict):
        raise UserError(f"{source}: not a workload (expected a mapping)")
    _check_keys(data, {"iotwin_workload", "name", "source", "ranks", "ranks_per_node", "mpi",
                       "files"}, source, "workload")
    ranks = _positive_int(data.get("ranks"), source, "ranks")
    if workload_mpi(data) not in MPIS:
        raise _fail(source, "mpi", f"expected {' or '.join(MPIS)}, got {data['mpi']!r}")
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


def describe_workload(data: Mapping[str, Any]) -> list[str]:
    """A workload in a few lines for people: one for the whole, one per file session with its
    datasets' shapes (``iotwin show``; the workload itself is YAML, dump_workload)."""
    sessions = data.get("files", [])
    lines = [f"{data.get('name', 'workload')}: {data.get('ranks')} ranks, "
             f"{workload_mpi(data)}, {len(sessions)} file session(s)"]
    for session in sessions:
        mode = session.get("mode", "shared")
        if mode == "groups":
            mode = f"groups of {session.get('groups')}"
        calls, datasets = session.get("calls"), session.get("datasets", [])
        shown = ", ".join(f"{d['name']} {_shape(d)} x{d['element_bytes']} B"
                          for d in datasets[:SHOWN_DATASETS])
        more = (f", ... {len(datasets) - SHOWN_DATASETS} more"
                if len(datasets) > SHOWN_DATASETS else "")
        lines.append(f"  {session['name']} ({mode}, {session.get('api', 'hdf5')}"
                     f"{', ' + str(len(calls)) + ' calls' if calls else ''}): "
                     f"{len(datasets)} dataset(s): {shown}{more}")
    return lines


SHOWN_DATASETS = 3  # of a file session, by describe_workload


def _shape(dataset: Mapping[str, Any]) -> list[int]:
    decomposition = dataset.get("decomposition")
    return _decomposition_dims(decomposition) if decomposition else list(dataset.get("dims", []))


def dump_workload(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def kernel_workload(kernel: str, ranks: int, args: Sequence[str], mpi: str = DEFAULT_MPI
                    ) -> dict[str, Any]:
    """The workload a kernel run would write, from the kernel's own ``--describe``, run under
    ``mpi`` (its flavour on this machine: executors.mpi_flavour), asked of that flavour's
    build of the kernel: block3d-io's process grid is its MPI's MPI_Dims_create, which MPICH
    and Open MPI answer differently."""
    binary = select_flavour(mpi).kernel(kernel)
    command = [str(binary), "--describe", "--ranks", str(ranks), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UserError(f"{kernel} --describe failed: {done.stderr.strip() or done.stdout.strip()}")
    text = done.stdout.strip()
    try:
        data = json.loads(text) if text.startswith("{") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise UserError(f"{kernel} --describe printed no workload: {error}") from error
    return validate_workload({**data, "mpi": mpi}, f"{kernel} --describe")
