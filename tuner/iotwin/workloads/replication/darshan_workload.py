"""A workload (sim-models/WORKLOAD.md) from the write activity in a Darshan log.

What the counters give directly: ranks, files, which are shared, HDF5 or bare MPI-IO, the
datasets with their element size and extent, bytes, access sizes, collective or independent
transfers, the order of the file sessions and the gaps between them. What they do not give —
which rank wrote how much of a shared dataset — is rebuilt the way MACSio builds its data:
the dataset is cut into parts of the most common access size and the parts are dealt out to
the writers as evenly as possible, which reproduces the fastest/slowest-rank byte counts the
log records.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from iotwin.workloads.replication.darshan_log import (
    DatasetActivity,
    FileActivity,
    LogActivity,
    read_log,
)
from iotwin.workloads.replication.sessions import (
    Dataset,
    Session,
    dataset,
    session,
    spread,
    workload,
)

#: file names that mark a visualisation (plot, trickle) file rather than a checkpoint
VISUALISATION_NAME = re.compile(r"(vis|viz|plot|graph|movie)", re.IGNORECASE)


def file_role(activity: FileActivity) -> str:
    """Visualisation if the file is flushed while open (appended states) or named like one."""
    if activity.flushes > 0 or VISUALISATION_NAME.search(PurePosixPath(activity.name).name):
        return "visualisation"
    return "checkpoint"


def _dataset_entry(activity: DatasetActivity, writers: int) -> Dataset:
    """The dataset's full extent, dealt out to the writers in parts of the access size."""
    eb = activity.element_bytes
    elements = max(activity.points, activity.bytes_written // eb)
    access = activity.access_bytes // eb if activity.access_bytes % eb == 0 else 0
    if access and elements % access == 0:
        writer_elements = [parts * access for parts in spread(elements // access, writers)]
    else:
        writer_elements = spread(elements, writers)
    transfer = "collective" if activity.collective else "independent"
    return dataset(activity.name, eb, writer_elements, transfer=transfer,
                   access_elements=access or None)


def _mpiio_dataset(activity: FileActivity, writers: int) -> Dataset:
    """Bare MPI-IO files have no datasets: one byte-typed array of what was written, each
    rank's share as the log records it, else dealt out evenly."""
    access = activity.access_bytes or None
    known = activity.rank_bytes if activity.shared and len(activity.rank_bytes) > 1 else {}
    shares = ([known.get(rank, 0) for rank in range(writers)] if known
              else spread(activity.mpiio_bytes, writers))
    return dataset("/mpiio", 1, shares,
                   transfer="collective" if activity.collective_writes else "independent",
                   access_elements=access)


def _session(activity: FileActivity, ranks: int, previous_close_s: float) -> Session:
    writers = ranks if activity.shared else 1
    if activity.hdf5 and activity.datasets:
        datasets = [_dataset_entry(d, writers) for d in activity.datasets]
    else:
        datasets = [_mpiio_dataset(activity, writers)]
    name = PurePosixPath(activity.name).name
    return session(name, file_role(activity), datasets,
                   mode="shared" if activity.shared else "per-rank",
                   api="hdf5" if activity.hdf5 else "mpiio",
                   compute_before_s=max(0.0, activity.open_s - previous_close_s),
                   flushes=activity.flushes)


def per_rank_files(activity: LogActivity) -> list[FileActivity]:
    """Unshared files are kept once per name pattern: the workload's per-rank mode covers them."""
    kept, seen = [], set()
    for f in activity.files:
        key = re.sub(r"\d+", "#", PurePosixPath(f.name).name) if not f.shared else f.name
        if key not in seen:
            seen.add(key)
            kept.append(f)
    return kept


def workload_from_log(path: Path) -> dict[str, Any]:
    return workload_from_activity(read_log(path))


def workload_from_activity(activity: LogActivity) -> dict[str, Any]:
    path = activity.path
    files, previous_close = [], 0.0
    for f in per_rank_files(activity):
        files.append(_session(f, activity.ranks, previous_close))
        previous_close = f.close_s
    source = (f"from-darshan {path.name}: {activity.ranks} ranks, run time "
              f"{activity.run_time_s:g} s, modules {', '.join(activity.modules)}")
    return workload(path.stem, source, activity.ranks, files)


def log_bytes_per_role(path: Path) -> dict[str, dict[str, int]]:
    """What the log says was written, per file role: dataset payload, MPI-IO bytes, file extent."""
    totals: dict[str, dict[str, int]] = {}
    for f in read_log(path).files:
        role = totals.setdefault(file_role(f), {"payload": 0, "mpiio": 0, "extent": 0})
        role["payload"] += sum(d.bytes_written for d in f.datasets) if f.datasets \
            else f.mpiio_bytes
        role["mpiio"] += f.mpiio_bytes
        role["extent"] += f.extent_bytes
    return totals
