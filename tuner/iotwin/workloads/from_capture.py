"""A program's workload from the interposer's capture (IOTWIN_CAPTURE, interposer/README.md).

The interposer writes one record per file session (JSON lines), of HDF5 files and of the files
the program writes through MPI-IO itself (``api: mpiio``: its regions as datasets, laid end to
end from offset 0, sim-models/WORKLOAD.md; a PnetCDF file's too, its header among them: its
captured form, data/io-libraries.yaml, whose session names the library, ``library``), and of
the files it writes through POSIX calls (``api: posix``, the same form: one byte region; each
process its own record, the records of a file several processes opened merged:
workloads/independent_opens). One run's records become one
workload: sessions in time order; W single-process records whose names differ only by the rank
become one `per-rank` session (`%r`), M records of W/M ranks each whose names differ only by the
group number one `groups` session (`%g`); a session's `compute_before_s` is the gap after the
previous session's close; its `calls` are copied through. The gap between a session's last call
and its close is dropped (it is neither I/O nor, in this model, compute before anything).
Sessions that created and wrote nothing (files only read) are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.io_libraries import io_libraries
from iotwin.core.text import printable_tree
from iotwin.workloads.independent_opens import merge_independent
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import call_reach, validate_workload

CAPTURE_VARIABLE = "IOTWIN_CAPTURE"
CALL_TIMES = ("start", "end")   # in the records for the rate; not workload keys


class CaptureError(UserError):
    """The program could not be captured: it crashed, hung, or wrote no HDF5, MPI-IO or POSIX
    data file."""


def read_capture(path: Path) -> list[dict[str, Any]]:
    """The capture records of a file (no file: none), every string in them printable."""
    if not path.exists():
        return []
    records = []
    # the names are the program's: any bytes, any characters; they go on escaped
    for number, line in enumerate(path.read_text(errors="surrogateescape").splitlines(), 1):
        try:
            record = printable_tree(json.loads(line))
        except json.JSONDecodeError as error:
            raise UserError(f"{path}:{number}: not a capture record: {error}") from error
        if isinstance(record, dict) and record.get("iotwin_capture") == 1:
            records.append(record)
    return records


def _writes_anything(record: Mapping[str, Any]) -> bool:
    return bool(record.get("datasets")) or any("write" in c for c in record.get("calls", []))


def _template(name: str, number: int, mark: str) -> str | None:
    """``name`` with its last occurrence of ``number`` (as a whole number) replaced by ``mark``."""
    matches = [m for m in re.finditer(r"\d+", name) if int(m.group()) == number]
    if not matches:
        return None
    last = matches[-1]
    return name[:last.start()] + mark + name[last.end():]


def _session_groups(records: list[dict[str, Any]], world: int) -> list[tuple[str, list]]:
    """(mode, records) per workload session: the records of one per-rank or N-M file set go
    together; every other record is a shared session of its own."""
    sessions: list[tuple[str, list]] = []
    pending: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda r: r["t_open"]):
        size = int(record["comm_size"])
        if size == world:
            sessions.append(("shared", [record]))
            continue
        index = int(record["world_rank"]) // size
        mark = "%r" if size == 1 else "%g"
        template = _template(record["file"], index, mark)
        if template is None:
            raise UserError(f"{record['file']}: opened by {size} of {world} ranks, but its name "
                            f"holds no rank or group number: not expressible as per-rank or "
                            f"groups files")
        key = (template, size, record["how"])
        members = pending.setdefault(key, [])
        if any(int(m["world_rank"]) == int(record["world_rank"]) for m in members):
            raise UserError(f"{record['file']}: opened again by the same ranks before the "
                            f"other {world // size - len(members)} files of its set")
        members.append(record)
        if len(members) == world // size:
            del pending[key]
            sessions.append(("per-rank" if size == 1 else "groups", members))
    if pending:
        (template, size, _), members = next(iter(pending.items()))
        raise UserError(f"{template}: {len(members)} files of {world // size} expected "
                        f"(one per {'rank' if size == 1 else 'group'}): incomplete file set")
    return sessions


def _opened_independently(records: list[dict[str, Any]], world: int) -> list[dict[str, Any]]:
    """The records with every POSIX file that processes opened each on its own under one name
    (a shared file, or one only some ranks wrote) merged into one record of all ranks
    (workloads/independent_opens); a file per process keeps its record per rank."""
    groups: dict[tuple[str, int], list[dict[str, Any]]] = {}
    seen: dict[tuple[str, int], int] = {}
    out: list[dict[str, Any]] = []
    for record in sorted(records, key=lambda r: r["t_open"]):
        if record.get("api") != "posix" or int(record["comm_size"]) == world:
            out.append(record)
            continue
        occurrence = seen.get((record["file"], int(record["world_rank"])), 0)
        seen[(record["file"], int(record["world_rank"]))] = occurrence + 1
        groups.setdefault((record["file"], occurrence), []).append(record)
    for members in groups.values():
        alone = members[0] if len(members) == 1 else None
        if alone and _template(alone["file"], int(alone["world_rank"]), "%r"):
            out.append(alone)   # one of a file per process (data.<rank>)
        else:
            out.append(merge_independent(members, world))
    return out


def _dataset(node: Mapping[str, Any], api: str) -> dict[str, Any]:
    """A captured dataset; an MPI-IO file's region has no HDF5 layout, fill or allocation."""
    dataset = {"name": node["name"], "element_bytes": int(node["element_bytes"]),
               "dims": [int(d) for d in node["dims"]],
               "chunk_dims": node["chunk_dims"] if node["layout"] == "chunked" else None}
    if api == "hdf5":
        dataset.update({"fill_time": node["fill_time"], "alloc_time": node["alloc_time"],
                        "fill_value": node["fill_value"]})
    return dataset


def _call(node: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in node.items() if key not in CALL_TIMES}


def _session(mode: str, members: list[dict[str, Any]], world: int,
             previous_close: float | None) -> dict[str, Any]:
    first = min(members, key=lambda r: int(r["world_rank"]))
    t_open = min(float(r["t_open"]) for r in members)
    gap = max(0.0, t_open - previous_close) if previous_close is not None else 0.0
    name = first["file"] if mode == "shared" else _template(
        first["file"], int(first["world_rank"]) // int(first["comm_size"]),
        "%r" if mode == "per-rank" else "%g")
    session: dict[str, Any] = {"name": name, "role": "other", "mode": mode}
    if mode == "groups":
        session["groups"] = world // int(first["comm_size"])
    library = str(first.get("api", "hdf5"))
    api = io_libraries()[library].captured_as
    calls = [_call(c) for c in first["calls"]]
    datasets = [_grown(_dataset(d, api), calls, _extended(first)) for d in first["datasets"]]
    session["api"] = api
    if library != api:  # a library's file in the form of the layer below: which library
        session["library"] = library
    session.update({"create": first["how"] == "create", "compute_before_s": round(gap, 6)})
    for own in ("hdf5_access", "hdf5_create"):  # what the program set on the file's lists
        if own in first:
            session[own] = dict(first[own])
    session["datasets"] = datasets
    if first.get("attributes"):  # what HDF5 writes for them is metadata of the file's
        session["attributes"] = [dict(a) for a in first["attributes"]]
    session["calls"] = calls
    return session


def _extended(record: Mapping[str, Any]) -> set[str]:
    """The datasets the program extended (H5Dset_extent, H5Dextend: netCDF's unlimited
    dimensions), as the interposer noted them."""
    return {what.split(" on ", 1)[1] for what in record.get("unsupported", [])
            if what.startswith(("H5Dset_extent on ", "H5Dextend on "))}


def _grown(dataset: dict[str, Any], calls: Sequence[Mapping[str, Any]],
           extended: set[str]) -> dict[str, Any]:
    """An extended dataset at the extent its writes reached: the workload creates it at its
    final size (the cost of growing it step by step is not modelled)."""
    if dataset["name"] not in extended:
        return dataset
    dims = list(dataset["dims"])
    for call in calls:
        for index, name in enumerate(call.get("write") or []):
            if name == dataset["name"]:
                reach = call_reach(call, index, len(dims))
                dims = [max(d, r) for d, r in zip(dims, reach, strict=True)]
    return {**dataset, "dims": dims}


def merge_records(records: Sequence[Mapping[str, Any]], name: str, source: str) -> dict[str, Any]:
    """One run's capture records as one workload (not validated: see workload_from_capture)."""
    writing = [dict(r) for r in records if _writes_anything(r)]
    if not writing:
        raise CaptureError(f"{source}: wrote no HDF5 dataset, MPI-IO file or POSIX data file "
                           f"(the interposer captured no file session that created or wrote "
                           f"one)")
    worlds = {int(r["world_size"]) for r in writing}
    if len(worlds) != 1:
        raise UserError(f"{source}: capture records of runs on {sorted(worlds)} ranks: "
                        f"merge the records of one run at a time")
    world = worlds.pop()
    files: list[dict[str, Any]] = []
    previous_close: float | None = None
    for mode, members in _session_groups(_opened_independently(writing, world), world):
        files.append(_session(mode, members, world, previous_close))
        previous_close = max(float(r["t_close_done"]) for r in members)
    return {"iotwin_workload": 1, "name": name, "source": source, "ranks": world,
            "files": files}


def workload_from_capture(records: Sequence[Mapping[str, Any]], name: str, source: str,
                          mpi: str | None = None) -> Workload:
    """One run's capture records as one validated workload (run under ``mpi``, if given)."""
    merged = merge_records(records, name, source)
    return validate_workload({**merged, "mpi": mpi} if mpi else merged, source)


def unsupported(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """What the program did that the captured workload cannot express, once each."""
    seen: dict[str, None] = {}
    for record in records:
        for what in record.get("unsupported", []):
            seen.setdefault(f"{record['file']}: {what}", None)
    return list(seen)
