"""Reading a Darshan log into per-file write activity, refusing logs that cannot be trusted.

A truncated log is the common failure (a job killed while Darshan wrote it): darshan-util
prints a warning and returns whatever it could decompress, so the check is done here, against
the region map in the log header, before any counter is believed.
"""

from __future__ import annotations

import struct
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError

#: modules that say what a parallel application wrote; a log needs at least one of them
WRITE_MODULES = ("MPI-IO", "H5F")
_HEADER_MAPS_AT = 24  # version string (8), magic (8), compression type + partial flag (8)
_MAGIC = 0x643537


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


def check_complete(path: Path, module_indices: list[int]) -> None:
    """UserError unless every region the header announces lies inside the file."""
    data = path.read_bytes()
    size = len(data)
    maps_end = _HEADER_MAPS_AT + 16 * (1 + max(module_indices, default=0) + 1)
    if size < maps_end or struct.unpack_from("<q", data, 8)[0] != _MAGIC:
        raise UserError(f"{path}: not a Darshan log, or its header is cut short")
    regions = [struct.unpack_from("<QQ", data, _HEADER_MAPS_AT)]
    regions += [struct.unpack_from("<QQ", data, _HEADER_MAPS_AT + 16 * (1 + i))
                for i in module_indices]
    end = max(offset + length for offset, length in regions)
    if end > size:
        raise UserError(f"{path}: truncated Darshan log ({size} bytes, its header announces "
                        f"{end}); regenerate it or use a complete copy")


def _open_report(path: Path) -> Any:
    import darshan  # imported here: loading darshan-util costs time every CLI call would pay

    if not path.is_file():
        raise UserError(f"{path}: no such Darshan log")
    try:
        report = darshan.DarshanReport(str(path), read_all=False)
    except Exception as error:  # darshan-util signals every failure the same way
        raise UserError(f"{path}: cannot be read as a Darshan log ({error})") from error
    check_complete(path, [info["idx"] for info in report.modules.values()])
    missing = [m for m in WRITE_MODULES if m not in report.modules]
    if len(missing) == len(WRITE_MODULES):
        raise UserError(
            f"{path}: the log has no {' or '.join(WRITE_MODULES)} module (it has: "
            f"{', '.join(report.modules) or 'none'}); replication needs the MPI-IO or HDF5 "
            "counters: rerun the application with Darshan's MPI-IO and HDF5 modules enabled")
    for module in ("POSIX", "MPI-IO", "H5F", "H5D"):
        if module in report.modules:
            report.mod_read_all_records(module)
    return report


def _rows(report: Any, module: str) -> list[tuple[str, dict[str, float]]]:
    """(record name, counters and fcounters) for each record of a module, one per rank row."""
    if module not in report.records:
        return []
    frames = report.records[module].to_df()
    counters, fcounters = frames["counters"], frames.get("fcounters")
    rows = []
    # record ids are 64-bit: read them from their own column, as a row turns them into floats
    for index, (record_id, row) in enumerate(zip(counters["id"], counters.iterrows(), strict=True)):
        values = {k: float(v) for k, v in row[1].items() if k != "id"}
        if fcounters is not None:
            values.update({k: float(v) for k, v in fcounters.iloc[index].items()
                           if k not in ("id", "rank")})
        rows.append((report.name_records[int(record_id)], values))
    return rows


def _sum(rows: list[dict[str, float]], key: str) -> int:
    return int(sum(max(r.get(key, 0.0), 0.0) for r in rows))


def _dataset(name: str, rows: list[dict[str, float]]) -> DatasetActivity:
    first = rows[0]
    return DatasetActivity(
        name=name,
        element_bytes=int(first["H5D_DATATYPE_SIZE"]),
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


def _group(rows: list[tuple[str, dict[str, float]]]) -> dict[str, list[dict[str, float]]]:
    grouped: dict[str, list[dict[str, float]]] = defaultdict(list)
    for name, values in rows:
        grouped[name].append(values)
    return grouped


def _file(name: str, mpiio: list[dict[str, float]], posix: list[dict[str, float]],
          h5f: list[dict[str, float]], datasets: list[DatasetActivity]) -> FileActivity:
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
    report = _open_report(path)
    mpiio, posix, h5f = (_group(_rows(report, m)) for m in ("MPI-IO", "POSIX", "H5F"))
    h5d = _group(_rows(report, "H5D"))
    files = []
    for name, rows in mpiio.items():
        if _sum(rows, "MPIIO_BYTES_WRITTEN") == 0:
            continue
        datasets = [_dataset(key.split(":", 1)[1], drows) for key, drows in h5d.items()
                    if key.split(":", 1)[0] == name and _sum(drows, "H5D_BYTES_WRITTEN") > 0]
        files.append(_file(name, rows, posix.get(name, []), h5f.get(name, []), datasets))
    if not files:
        raise UserError(f"{path}: no file was written through MPI-IO; nothing to replicate "
                        "(POSIX-only output carries too little structure)")
    job = report.metadata["job"]
    return LogActivity(path=path, ranks=int(job["nprocs"]), run_time_s=float(job["run_time"]),
                       modules=list(report.modules), files=sorted(files, key=lambda f: f.open_s))
