"""Datasets that some ranks write alone, where a forced collective transfer would hang the program.

A collective ``H5Dwrite`` returns only once every rank of the file's communicator has called it
(HDF5's MPI-IO driver makes it an ``MPI_File_write_at_all``). A program that writes a small
table from rank 0 alone, independently, never makes that call on the other ranks, so forcing
``transfer_mode: collective`` on that table hangs rank 0 for ever. A captured workload shows
such writes: a call the program made independently whose selections name fewer writers than
the file has. A writer with an empty selection cannot be told from one that made no call, so it
counts as not calling (the safe reading).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from iotwin.config.resolution import literal_glob
from iotwin.space.parameters import SpaceContext
from iotwin.workloads.workload import run_ranks, session_writers, workload_mpi

_RANK_MARKS = ("%r", "%g")


def partial_write_datasets(workload: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(file glob, dataset glob) of each dataset some call writes from a subset of the file's
    ranks, independently, as config ``match`` patterns (a per-rank file's name matches all)."""
    found: dict[tuple[str, str], None] = {}
    for session in workload["files"]:
        writers = session_writers(session, int(workload["ranks"]))
        for call in session.get("calls", []):
            if call.get("transfer") == "collective" or "write" not in call:
                continue
            for name, selection in zip(call["write"], call["selections"], strict=True):
                if len(_writers_named(selection, writers)) < writers:
                    found.setdefault((file_glob(session["name"]), literal_glob(name)), None)
    return tuple(found)


def file_glob(session_name: str) -> str:
    """The ``match`` pattern of a session's files: its name, the rank or group number any. A
    workload names files relative to the working directory; a program may pass the same file
    with the directory's path before it: a name in a subdirectory (the basename alone matches
    anyway, interposer/CONFIG.md) matches with any path before it."""
    pattern = "".join("*" if part in _RANK_MARKS else literal_glob(part)
                      for part in re.split(r"(%[rg])", session_name))
    return f"*{pattern}" if "/" in session_name else pattern


def _writers_named(selection: Mapping[str, Any], writers: int) -> set[int]:
    """The writers that write something in one dataset's selection of one call."""
    if "runs" not in selection:
        return set(range(writers))   # a regular grid: every writer writes its block
    named: set[int] = set()
    for run in selection["runs"] or []:
        if 0 in run.get("count", [1]) or 0 in run.get("block", [1]):
            continue
        first, n, step = run_ranks(run["ranks"])
        named.update(first + k * step for k in range(n))
    return named


def program_context(context: SpaceContext, workload: Mapping[str, Any]) -> SpaceContext:
    """``context`` (where the runs happen) for the program of ``workload``: the MPI it runs
    under, the datasets some of its ranks write alone (kept independent by a space), and the
    I/O layers its files are written through (no HDF5 setting for a program writing none)."""
    return replace(context, mpi=workload_mpi(workload),
                   partial_writes=partial_write_datasets(workload), apis=workload_apis(workload))


def workload_apis(workload: Mapping[str, Any]) -> tuple[str, ...]:
    """The I/O layers the workload's files are written through (its files' ``api``s, a
    captured file's the ``library`` the program called: a PnetCDF file captured as MPI-IO
    regions is PnetCDF's); every layer for a description without files (a kernel's, before it
    describes itself)."""
    files = workload.get("files") or []
    return (tuple(sorted({str(f.get("library") or f.get("api", "hdf5")) for f in files}))
            if files else ("hdf5", "mpiio", "posix"))
