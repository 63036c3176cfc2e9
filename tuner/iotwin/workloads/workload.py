"""The workload format (sim-models/WORKLOAD.md): load, validate, normalise, write, and ask a
kernel for it.

Its keys, their types and bounds are data/workload-schema.yaml, walked by
iotwin.formats.record_schema; the rules the keys cannot say alone (WORKLOAD.md "Rules") are here, in
the order formats/workload_rules.c checks them for iosim and the replay proxy, so that the
three readers accept and refuse the same documents (tests/formats/test_workload_parity.py).
Sizes are computed exactly and bounded by the bounds table (dataset_bytes, workload_bytes).
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar, cast

import yaml

from iotwin.core import paths
from iotwin.core.errors import InputError, UserError
from iotwin.core.mpi_flavours import DEFAULT_MPI, select_flavour
from iotwin.core.yaml_files import read_document, read_input
from iotwin.formats.bounds import load_bounds
from iotwin.formats.record_schema import (
    DocumentError,
    RecordChecker,
    RecordSchema,
    describe,
    load_record_schema,
    normal_form,
)
from iotwin.workloads.types import Workload

#: a run's per-axis lists and what each axis is when the list is absent
_RUN_AXES = (("start", 0), ("start_step", 0), ("count", 1), ("stride", 1), ("block", 1))
_DECOMPOSITION_FORMS = ("block", "dims", "extents")
Checked = TypeVar("Checked")


@functools.lru_cache(maxsize=1)
def workload_schema() -> RecordSchema:
    return load_record_schema(paths.data_dir() / "workload-schema.yaml")


def session_writers(node: Mapping[str, Any], ranks: int, source: str = "workload",
                    path: str = "file") -> int:
    """How many ranks write one instance of a file session (a per-rank file: one)."""
    mode = node.get("mode", "shared")
    if mode != "groups":
        return {"shared": ranks, "per-rank": 1}[mode]
    return _Rules(source).writers({**node, "mode": mode}, ranks, path)[0]


def dataset_bytes(dataset: Mapping[str, Any]) -> int:
    """The data bytes of a validated workload's dataset, over all its writers."""
    return int(dataset["element_bytes"]) * math.prod(_shape(dataset))


def instance_bytes(file: Mapping[str, Any]) -> int:
    """The data bytes of one instance of a validated workload's file session (a per-rank
    file: one rank's file), without HDF5's metadata."""
    return sum(dataset_bytes(dataset) for dataset in file["datasets"])


def call_reach(call: Mapping[str, Any], index: int, rank: int) -> list[int]:
    """How far the ``index``-th selection of a well-formed ``call`` (its repetitions included)
    reaches along each of the ``rank`` axes of its dataset (0: nothing selected there)."""
    selection = call["selections"][index]
    if "grid" in selection:
        origin = selection.get("origin", [0] * rank)
        extents = _grid_extents(selection)
        repeat = call.get("repeat") or {}
        step = repeat.get("origin_step", [0] * rank)
        times = int(repeat.get("times", 1))
        return [max(o, o + (times - 1) * d) + e
                for o, d, e in zip(origin, step, extents, strict=True)]
    reach = [0] * rank
    for run in selection.get("runs") or []:
        reach = [max(r, x) for r, x in zip(reach, _run_reach(run, rank), strict=True)]
    return reach


def run_ranks(ranks: Sequence[int]) -> tuple[int, int, int]:
    """A run's ``ranks`` ([first, n] or [first, n, step]) as (first, n, step)."""
    first, n, step = (*ranks, 1) if len(ranks) == 2 else ranks
    return first, n, step


def _run_axes(run: Mapping[str, Any], rank: int) -> dict[str, list[int]]:
    return {key: list(run.get(key, [default] * rank)) for key, default in _RUN_AXES}


def _run_reach(run: Mapping[str, Any], rank: int) -> list[int]:
    """Per axis, the end of the farthest hyperslab of the run's writers (0: it selects nothing)."""
    _, n, _ = run_ranks(run["ranks"])
    axes = _run_axes(run, rank)
    if not n or 0 in axes["count"] or 0 in axes["block"]:
        return [0] * rank
    return [max(start, start + (n - 1) * step) + (count - 1) * stride + block
            for start, step, count, stride, block
            in zip(*(axes[key] for key, _ in _RUN_AXES), strict=True)]


def _grid_extents(node: Mapping[str, Any]) -> list[int]:
    """The extents a decomposition (or regular selection) covers, per axis."""
    if "dims" in node:
        return list(node["dims"])
    if "extents" in node:
        return [sum(axis) for axis in node["extents"]]
    return [g * b for g, b in zip(node["grid"], node["block"], strict=True)]


def inside_run_directory(name: str) -> bool:
    """Whether a file name stays inside the directory a run writes in: relative, no ``..``
    (a workload must not write over files elsewhere when it is replayed)."""
    pure = PurePosixPath(name)
    return bool(name) and not pure.is_absolute() and ".." not in pure.parts


class _Rules:
    """The format's rules on a workload's normal form (WORKLOAD.md "Rules"), which they
    complete with the per-axis defaults of selections and runs."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.bounds = load_bounds()

    def fail(self, path: str, message: str) -> InputError:
        return InputError(self.source, path, message)

    def workload(self, work: dict[str, Any]) -> None:
        limit = self.bounds["workload_bytes"].max
        total = 0
        for i, session in enumerate(work["files"]):
            total += self.session(session, work["ranks"], f"files[{i}]")
            if total > limit:
                raise self.fail(f"files[{i}]", f"the sessions up to this one write more than "
                                f"{limit} bytes")

    def writers(self, session: Mapping[str, Any], ranks: int, path: str) -> tuple[int, int]:
        """(writers of one file, files) of a session."""
        if session["mode"] == "shared":
            return ranks, 1
        if session["mode"] == "per-rank":
            return 1, ranks
        if "groups" not in session:
            raise self.fail(f"{path}.groups", "missing (needed with mode groups)")
        groups = session["groups"]
        if ranks % groups:
            raise self.fail(f"{path}.groups", f"{groups} does not divide {ranks} ranks")
        return ranks // groups, groups

    def session(self, session: dict[str, Any], ranks: int, path: str) -> int:
        """Checks a file session; returns the bytes it writes (all its files)."""
        if not inside_run_directory(session["name"]):
            raise self.fail(f"{path}.name", f"{describe(session['name'])} lies outside the "
                            f"directory the run writes in (a file name is relative, without "
                            f"'..')")
        writers, files = self.writers(session, ranks, path)
        shapes: dict[str, tuple[list[int], int]] = {}
        for d, dataset in enumerate(session["datasets"]):
            where = f"{path}.datasets[{d}]"
            if dataset["name"] in shapes:
                raise self.fail(f"{where}.name", f"a second dataset named "
                                f"{describe(dataset['name'])} in the session")
            shapes[dataset["name"]] = (self.dataset_dims(dataset, writers, where),
                                       dataset["element_bytes"])
        if "calls" in session:
            written = sum(self.call(call, shapes, writers, f"{path}.calls[{c}]")
                          for c, call in enumerate(session["calls"]))
        else:
            written = sum(nbytes * math.prod(dims) for dims, nbytes in shapes.values())
        return written * files

    def dataset_dims(self, dataset: dict[str, Any], writers: int, path: str) -> list[int]:
        if "decomposition" in dataset:
            dims = self.grid_extents(dataset["decomposition"], writers, f"{path}.decomposition")
            if "dims" in dataset and dataset["dims"] != dims:
                raise self.fail(f"{path}.dims", f"differs from the decomposition's extents "
                                f"{dims}")
        elif "dims" in dataset:
            dims = list(dataset["dims"])
        else:
            raise self.fail(f"{path}.dims", "missing (needed without a decomposition)")
        limit = self.bounds["dataset_bytes"].max
        if dataset["element_bytes"] * math.prod(dims) > limit:
            raise self.fail(path, f"more than {limit} bytes (element_bytes times its extents)")
        chunk = dataset.get("chunk_dims")
        if chunk is not None and len(chunk) != len(dims):
            raise self.fail(f"{path}.chunk_dims", f"{len(chunk)} extents for a "
                            f"{len(dims)}-axis dataset")
        return dims

    def grid_extents(self, node: Mapping[str, Any], writers: int, path: str) -> list[int]:
        """Checks a decomposition (or a regular selection) on ``writers``; its extents."""
        grid = node["grid"]
        forms = [form for form in _DECOMPOSITION_FORMS if form in node]
        if len(forms) != 1:
            raise self.fail(path, "needs exactly one of block, dims, extents")
        form = forms[0]
        if len(node[form]) != len(grid):
            what = "list" if form == "extents" else "extent"
            raise self.fail(f"{path}.{form}", f"one {what} per grid axis ({len(grid)})")
        for a, axis in enumerate(node["extents"] if form == "extents" else []):
            if len(axis) != grid[a]:
                raise self.fail(f"{path}.extents[{a}]", f"expected {grid[a]} entries, got "
                                f"{len(axis)}")
        got = math.prod(grid)
        if got != writers:
            most = self.bounds["processes"].max
            shown = str(got) if got <= most else f"more than {most}"
            raise self.fail(f"{path}.grid", f"{shown} writers, but the file has {writers}")
        extents = _grid_extents(node)
        longest = self.bounds["extent"].max
        for a, extent in enumerate(extents):
            if extent > longest:
                raise self.fail(path, f"axis {a} is longer than {longest} elements")
        return extents

    def call(self, call: dict[str, Any], shapes: Mapping[str, tuple[list[int], int]],
             writers: int, path: str) -> int:
        """Checks a call; returns the bytes it writes (its repetitions included)."""
        if call["flush"]:
            for key in ("write", "selections", "repeat"):
                if key in call:
                    raise self.fail(f"{path}.{key}", "a flush call writes nothing")
            return 0
        if "write" not in call:
            raise self.fail(f"{path}.write", "missing (a call writes datasets or flushes)")
        names, selections = call["write"], call.get("selections", [])
        if len(selections) != len(names):
            raise self.fail(f"{path}.selections", f"expected one per dataset written "
                            f"({len(names)}), got {len(selections)}")
        times = call["repeat"]["times"] if "repeat" in call else 1
        written = 0
        for k, name in enumerate(names):
            if name not in shapes:
                raise self.fail(f"{path}.write[{k}]", f"no dataset {describe(name)} in the "
                                f"session")
            dims, nbytes = shapes[name]
            elements, extents = self.selection(selections[k], dims, writers,
                                               f"{path}.selections[{k}]")
            if "repeat" in call:
                self.repeat(call["repeat"], selections[k], extents, dims, f"{path}.repeat")
            written += elements * nbytes * times
        return written

    def selection(self, node: dict[str, Any], dims: list[int], writers: int,
                  path: str) -> tuple[int, list[int] | None]:
        """Checks one dataset's selection; (elements it writes, its extents if regular)."""
        rank = len(dims)
        if "grid" in node and "runs" in node:
            raise self.fail(path, "is regular (grid) or explicit (runs), not both")
        if "grid" not in node:
            if "runs" not in node:
                raise self.fail(path, "needs grid (a regular selection) or runs")
            for key in (*_DECOMPOSITION_FORMS, "origin"):
                if key in node:
                    raise self.fail(f"{path}.{key}", "only for regular (grid) selections")
            return sum(self.run(run, dims, writers, f"{path}.runs[{r}]")
                       for r, run in enumerate(node["runs"])), None
        if len(node["grid"]) != rank:
            raise self.fail(f"{path}.grid", f"one axis per axis of the dataset ({rank})")
        extents = self.grid_extents(node, writers, path)
        origin = node.setdefault("origin", [0] * rank)
        if len(origin) != rank:
            raise self.fail(f"{path}.origin", f"one value per axis of the dataset ({rank})")
        reach = [o + e for o, e in zip(origin, extents, strict=True)]
        if any(r > d for r, d in zip(reach, dims, strict=True)):
            raise self.fail(path, f"reaches {reach}, beyond the dataset's extents {dims}")
        return math.prod(extents), extents

    def run(self, run: dict[str, Any], dims: list[int], writers: int, path: str) -> int:
        """Checks a run of hyperslabs; returns the elements it writes."""
        first, n, step = run_ranks(run["ranks"])
        if n and first + (n - 1) * step >= writers:
            raise self.fail(f"{path}.ranks", f"names a writer beyond the file's {writers}")
        rank = len(dims)
        for key, default in _RUN_AXES:
            if len(run.setdefault(key, [default] * rank)) != rank:
                raise self.fail(f"{path}.{key}", f"one value per axis of the dataset ({rank})")
        run["ranks"] = [first, n, step]
        for a, (count, stride, block) in enumerate(zip(run["count"], run["stride"],
                                                       run["block"], strict=True)):
            if count > 1 and stride < block:
                raise self.fail(f"{path}.stride", f"{stride} is less than the block {block} "
                                f"along axis {a}: the hyperslab's blocks overlap")
        if not n or 0 in run["count"] or 0 in run["block"]:
            return 0
        for a, (start, start_step, count, stride, block) in enumerate(
                zip(*(run[key] for key, _ in _RUN_AXES), strict=True)):
            last = start + (n - 1) * start_step
            if min(start, last) < 0:
                raise self.fail(path, f"starts before the dataset along axis {a}")
            if max(start, last) + (count - 1) * stride + block > dims[a]:
                raise self.fail(path, f"reaches beyond the extent {dims[a]} along axis {a}")
        return n * math.prod(c * b for c, b in zip(run["count"], run["block"], strict=True))

    def repeat(self, node: Mapping[str, Any], selection: Mapping[str, Any],
               extents: list[int] | None, dims: list[int], path: str) -> None:
        """The last repetition of a regular selection moved by origin_step stays in the
        dataset."""
        if extents is None:
            raise self.fail(path, "only for regular (grid) selections")
        step = node["origin_step"]
        if len(step) != len(dims):
            raise self.fail(f"{path}.origin_step", f"one value per axis of the dataset "
                            f"({len(dims)})")
        times = node["times"]
        for a, (origin, extent) in enumerate(zip(selection["origin"], extents, strict=True)):
            last = origin + (times - 1) * step[a]
            if min(origin, last) < 0 or max(origin, last) + extent > dims[a]:
                raise self.fail(path, f"repetition {times - 1} leaves the dataset along "
                                f"axis {a}")


def workload_mpi(workload: Mapping[str, Any]) -> str:
    """The MPI the workload runs under (its `mpi`; MPICH when it does not say)."""
    return str(workload.get("mpi", DEFAULT_MPI))


def normalised_workload(data: Any, source: str) -> dict[str, Any]:
    """The workload's normal form (every default filled in, as iosim and the replay proxy
    read it); InputError naming ``source`` and the key path if it is not a valid workload."""
    try:
        RecordChecker(workload_schema()).check(data)
    except DocumentError as error:
        raise InputError(source, error.path, error.message) from None
    normal = normal_form(workload_schema(), data)
    _Rules(source).workload(normal)
    return normal


def validate_workload(data: Any, source: str) -> Workload:
    """The workload itself if it is valid; UserError naming the key path otherwise: the one way
    to make a :class:`~iotwin.workloads.types.Workload`."""
    normalised_workload(data, source)
    return cast(Workload, data)


def read_workload(path: str | Path) -> Any:
    """The document in a workload file (not validated), read as every reader of the format
    reads its text (YAML or JSON; iotwin.core.yaml_files)."""
    return read_document(Path(path), "workload", floats=True, json_too=True)


def check_workload_file(path: str | Path, check: Callable[[Any, str], Checked]) -> Checked:
    """``check(document, str(path))`` (validate_workload, normalised_workload) of the workload
    in a file; a field it refuses is named with its line: ``FILE:LINE: FIELD: problem``."""
    return read_input(Path(path), "workload", check, json_too=True)


def load_workload(path: str | Path) -> Workload:
    return check_workload_file(path, validate_workload)


def compute_s(data: Mapping[str, Any]) -> float:
    """The workload's computation, in seconds: before each file session, before each call and
    between a repeated call's repetitions (the simulator's ``compute`` phases, which its I/O
    time leaves out, as the interposer's I/O time leaves out a run's)."""
    total = 0.0
    for session in data.get("files", []):
        total += float(session.get("compute_before_s") or 0)
        for call in session.get("calls") or []:
            repeat = call.get("repeat") or {}
            total += float(call.get("compute_before_s") or 0) + (
                int(repeat.get("times", 1)) - 1) * float(repeat.get("compute_between_s") or 0)
    return total


def describe_workload(data: Mapping[str, Any]) -> list[str]:
    """A workload in a few lines for people: one for the whole, one per file session with its
    datasets' shapes (``iotwin show``; the workload itself is YAML, dump_workload)."""
    sessions = data.get("files", [])
    compute = compute_s(data)
    lines = [f"{data.get('name', 'workload')}: {data.get('ranks')} ranks, "
             f"{workload_mpi(data)}, {len(sessions)} file session(s)"
             + (f", {compute:.3g} s of computation between its I/O calls" if compute else "")]
    for session in sessions:
        mode: str = session.get("mode", "shared")
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
    return _grid_extents(decomposition) if decomposition else list(dataset.get("dims", []))


def dump_workload(data: Mapping[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None)


def kernel_workload(kernel: str, ranks: int, args: Sequence[str], mpi: str = DEFAULT_MPI
                    ) -> Workload:
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
