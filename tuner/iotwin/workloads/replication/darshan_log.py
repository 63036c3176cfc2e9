"""Reading a Darshan log into per-file write activity, refusing logs that cannot be trusted.

darshan-util (C) runs in a child process (:mod:`.darshan_reader`) under a time and memory cap:
a corrupted log that crashes it, or makes it allocate or loop without end, is refused with one
line naming the log, and iotwin goes on. The child hands back plain rows; everything here is
Python reading them.

A truncated log is the common failure (a job killed while Darshan wrote it): darshan-util
prints a warning and returns whatever it could decompress, so the check is done against the
region map in the log header before any counter is believed, and any region darshan-util
could not decompress (its ``Error:`` lines) refuses the log too.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.library_threads import LIBRARY_THREAD_VARIABLES
from iotwin.core.text import printable

#: modules that say what a parallel application wrote; a log needs at least one of them
WRITE_MODULES = ("MPI-IO", "H5F")
#: the modules read from a log: the files' traffic and structure, and their striping
MODULES = ("POSIX", "MPI-IO", "H5F", "H5D", "LUSTRE")
#: what reading one log may take; the largest logs the darshan package ships take ~1 s and
#: under 200 MB of address space
READ_TIMEOUT_S = 300.0
READ_MEMORY_BYTES = 2 * 2**30
_READER = "iotwin.workloads.replication.darshan_reader"
_HEADER_MAPS_AT = 24  # version string (8), magic (8), compression type + partial flag (8)
_MAGIC = 0x643537
_MESSAGE_CHARS = 300  # of darshan-util's own messages, quoted in a refusal


@dataclass(frozen=True)
class LogRecords:
    """What the reader found in a log: per module, one row per record (``name``, printable,
    ``id``, ``rank`` and the counters by their Darshan names)."""

    path: Path
    ranks: int
    run_time_s: float
    modules: list[str]
    rows: dict[str, list[dict[str, Any]]]

    def of(self, module: str) -> list[dict[str, Any]]:
        return self.rows.get(module, [])


Row = dict[str, Any]


@dataclass
class DatasetActivity:
    """One HDF5 dataset as Darshan's H5D module saw it (all ranks)."""

    name: str
    element_bytes: int
    points: int
    bytes_written: int
    writes: int
    access_bytes: int
    collective: bool
    rank_bytes: dict[int, int] = field(default_factory=dict)  # per rank; -1: reduced (shared)
    fastest_rank_bytes: int = 0
    slowest_rank_bytes: int = 0
    first_write_s: float = 0.0


@dataclass
class FileActivity:
    """One file the application wrote through MPI-IO (and maybe HDF5)."""

    name: str
    shared: bool
    writer_ranks: set[int]
    mpiio_bytes: int
    extent_bytes: int  # highest byte written + 1: the file's size as the application left it
    access_bytes: int
    collective_writes: int
    independent_writes: int
    opens: int
    flushes: int
    open_s: float
    close_s: float
    hdf5: bool
    datasets: list[DatasetActivity] = field(default_factory=list)
    # MPI-IO bytes per rank when the log keeps one record per rank (no -1 reduced record)
    rank_bytes: dict[int, int] = field(default_factory=dict)


@dataclass
class LogActivity:
    path: Path
    ranks: int
    run_time_s: float
    modules: list[str]
    files: list[FileActivity]


def check_complete(path: Path, module_indices: Sequence[int] = ()) -> None:
    """UserError unless ``path`` starts as a Darshan log and every region its header
    announces (the name map, and the modules at ``module_indices``) lies inside the file."""
    maps_end = _HEADER_MAPS_AT + 16 * (2 + max(module_indices, default=-1))
    with path.open("rb") as log:
        header = log.read(maps_end)
    size = path.stat().st_size
    if len(header) < maps_end or struct.unpack_from("<q", header, 8)[0] != _MAGIC:
        raise UserError(f"{path}: not a Darshan log, or its header is cut short")
    regions = [struct.unpack_from("<QQ", header, _HEADER_MAPS_AT + 16 * (1 + i))
               for i in (-1, *module_indices)]
    end = max(offset + length for offset, length in regions)
    if end > size:
        raise UserError(f"{path}: truncated or corrupted Darshan log ({size} bytes, its header "
                        f"announces {end}); regenerate it or use a complete copy")


def read_records(path: Path, *, timeout_s: float = READ_TIMEOUT_S,
                 memory_bytes: int = READ_MEMORY_BYTES) -> LogRecords:
    """The log's rows of :data:`MODULES`, read by darshan-util in a child process capped at
    ``timeout_s`` and ``memory_bytes``; UserError naming the log for anything else."""
    if not path.is_file():
        raise UserError(f"{path}: no such Darshan log" if not path.exists() else
                        f"{path}: not a Darshan log (not a regular file)")
    check_complete(path)
    env = {**os.environ, **dict.fromkeys(LIBRARY_THREAD_VARIABLES, "1")}
    try:
        done = subprocess.run([sys.executable, "-m", _READER, str(path), str(memory_bytes)],
                              capture_output=True, text=True, errors="replace", env=env,
                              timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise UserError(f"{path}: reading the Darshan log took longer than {timeout_s:g} s "
                        "(a corrupted log can make darshan-util loop); refused") from None
    answer = _answer(path, done, f"read with at most {memory_bytes // 2**20} MiB of memory")
    darshan_errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    if darshan_errors:
        raise UserError(f"{path}: corrupted Darshan log: darshan-util: "
                        + _quoted(darshan_errors))
    return _records(path, answer)


def _answer(path: Path, done: subprocess.CompletedProcess[str], cap: str) -> dict[str, Any]:
    """The reader's JSON answer; UserError if it crashed, failed or refused the log (a crash
    or a failure says under which ``cap``: running out of memory looks like either)."""
    said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode < 0:
        crash = signal.Signals(-done.returncode).name
        why = [line for line in said if line.startswith("Error:") or "Assertion" in line]
        raise UserError(f"{path}: corrupted Darshan log: darshan-util crashed reading it "
                        f"({crash}{': ' + _quoted(why) if why else ''}; {cap})")
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        answer = None
    if done.returncode != 0 or not isinstance(answer, dict):
        raise UserError(f"{path}: the Darshan reader failed (exit status {done.returncode}"
                        f"{': ' + said[-1][:_MESSAGE_CHARS] if said else ''}; {cap})")
    if "refused" in answer:
        raise UserError(str(answer["refused"]))
    if "error" in answer:
        # one line, as every refusal: an exception's message may run to a traceback's length
        raise UserError(f"{path}: cannot be read as a Darshan log "
                        f"({_quoted(str(answer['error']).splitlines())})")
    return dict(answer["records"])


def _quoted(lines: list[str]) -> str:
    """darshan-util's (or its binding's) messages as one short phrase: "unable to inflate ...;
    failed to ..."."""
    phrases = (line.removeprefix("Error:").strip().rstrip(".") for line in lines)
    said = "; ".join(dict.fromkeys(phrase for phrase in phrases if phrase))
    return said if len(said) <= _MESSAGE_CHARS else said[:_MESSAGE_CHARS - 3] + "..."


def _records(path: Path, found: dict[str, Any]) -> LogRecords:
    ranks = int(found["ranks"])
    if ranks < 1:
        raise UserError(f"{path}: corrupted Darshan log: its job has {ranks} processes")
    modules = sorted(found["modules"], key=lambda name: found["modules"][name])
    rows = {module: [{**row, "name": printable(str(row["name"]))} for row in module_rows]
            for module, module_rows in found["rows"].items()}  # the application's names
    return LogRecords(path, ranks, float(found["run_time_s"]), modules, rows)


def _rows(records: LogRecords, module: str) -> list[tuple[str, dict[str, Any]]]:
    """(record name, its row) for each record of a module, one per rank row."""
    return [(str(row["name"]), row) for row in records.of(module)]


def _sum(rows: list[dict[str, Any]], key: str) -> int:
    return int(sum(max(r.get(key, 0.0), 0.0) for r in rows))


def _dataset(path: Path, name: str, rows: list[Row]) -> DatasetActivity:
    first = rows[0]
    element_bytes = int(first["H5D_DATATYPE_SIZE"])
    if element_bytes < 1:
        raise UserError(f"{path}: corrupted Darshan log: dataset {name!r} has elements of "
                        f"{element_bytes} bytes")
    return DatasetActivity(
        name=name,
        element_bytes=element_bytes,
        points=int(first["H5D_DATASPACE_NPOINTS"]),
        bytes_written=_sum(rows, "H5D_BYTES_WRITTEN"),
        writes=_sum(rows, "H5D_WRITES"),
        access_bytes=int(first["H5D_ACCESS1_ACCESS"]),
        collective=any(r["H5D_USE_MPIIO_COLLECTIVE"] > 0 for r in rows),
        rank_bytes={int(r["rank"]): int(r["H5D_BYTES_WRITTEN"]) for r in rows},
        fastest_rank_bytes=int(first["H5D_FASTEST_RANK_BYTES"]),
        slowest_rank_bytes=int(first["H5D_SLOWEST_RANK_BYTES"]),
        first_write_s=min(r["H5D_F_WRITE_START_TIMESTAMP"] for r in rows),
    )


def _group(rows: list[tuple[str, Row]]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = defaultdict(list)
    for name, values in rows:
        grouped[name].append(values)
    return grouped


def _file(name: str, mpiio: list[Row], posix: list[Row],
          h5f: list[Row], datasets: list[DatasetActivity]) -> FileActivity:
    ranks = {int(r["rank"]) for r in mpiio}
    rank_bytes = ({} if -1 in ranks
                  else {int(r["rank"]): int(r["MPIIO_BYTES_WRITTEN"]) for r in mpiio})
    return FileActivity(
        name=name,
        # Darshan reduces a file all ranks opened to one record of rank -1; without that
        # reduction, several ranks' records of one name are still one shared file.
        shared=-1 in ranks or len(ranks) > 1,
        writer_ranks=ranks,
        mpiio_bytes=_sum(mpiio, "MPIIO_BYTES_WRITTEN"),
        extent_bytes=int(max((r["POSIX_MAX_BYTE_WRITTEN"] for r in posix), default=-1)) + 1,
        access_bytes=int(mpiio[0].get("MPIIO_ACCESS1_ACCESS", 0)),
        collective_writes=_sum(mpiio, "MPIIO_COLL_WRITES"),
        independent_writes=_sum(mpiio, "MPIIO_INDEP_WRITES"),
        opens=_sum(mpiio, "MPIIO_COLL_OPENS") + _sum(mpiio, "MPIIO_INDEP_OPENS"),
        flushes=_sum(h5f, "H5F_FLUSHES"),
        open_s=min(r["MPIIO_F_OPEN_START_TIMESTAMP"] for r in mpiio),
        close_s=max(r["MPIIO_F_CLOSE_END_TIMESTAMP"] for r in mpiio),
        hdf5=bool(h5f),
        datasets=sorted(datasets, key=lambda d: d.first_write_s),
        rank_bytes=rank_bytes,
    )


def read_log(path: Path) -> LogActivity:
    """The files a log's application wrote through MPI-IO, with their HDF5 datasets."""
    return log_activity(read_records(path))


def log_activity(records: LogRecords) -> LogActivity:
    """The write activity in a log's records."""
    path = records.path
    if not any(module in records.modules for module in WRITE_MODULES):
        raise UserError(
            f"{path}: the log has no {' or '.join(WRITE_MODULES)} module (it has: "
            f"{', '.join(records.modules) or 'none'}); replication needs the MPI-IO or HDF5 "
            "counters: rerun the application with Darshan's MPI-IO and HDF5 modules enabled")
    mpiio, posix, h5f = (_group(_rows(records, m)) for m in ("MPI-IO", "POSIX", "H5F"))
    h5d = _group(_rows(records, "H5D"))
    files = []
    for name, rows in mpiio.items():
        if _sum(rows, "MPIIO_BYTES_WRITTEN") == 0:
            continue
        datasets = [_dataset(path, dataset, drows) for (file, dataset), drows in
                    ((key.partition(":")[::2], drows) for key, drows in h5d.items())
                    if file == name and _sum(drows, "H5D_BYTES_WRITTEN") > 0]
        files.append(_file(name, rows, posix.get(name, []), h5f.get(name, []), datasets))
    if not files:
        raise UserError(f"{path}: no file was written through MPI-IO; nothing to replicate "
                        "(POSIX-only output carries too little structure)")
    return LogActivity(path=path, ranks=records.ranks, run_time_s=records.run_time_s,
                       modules=records.modules, files=sorted(files, key=lambda f: f.open_s))
