"""Capturing a program's workload: one run under the interposer with capture on
(IOTWIN_CAPTURE), its records turned into a workload by :mod:`iotwin.workloads.from_capture`.

The program runs in its working directory (iotwin.executors.working_dir); the workload names
its files relative to it, so that a replay or a simulation writes them where the program did.
A program that writes a file outside its working directory is refused: the workload could not
name that file without writing outside the directory it is replayed in.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.run_records import RunResult, Target
from iotwin.core.text import printable
from iotwin.executors.launch import require_program
from iotwin.executors.local import NO_HDF5_IO, LocalExecutor
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.workloads.from_capture import (
    CAPTURE_VARIABLE,
    CaptureError,
    read_capture,
    unsupported,
    workload_from_capture,
)
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import compute_s


class FailedCapture(CaptureError):
    """The capture run failed, hung or wrote no HDF5, MPI-IO or POSIX data file: the run as
    measured comes with it, so that a campaign stores it as any other failed run."""

    def __init__(self, message: str, run: RunResult) -> None:
        super().__init__(message)
        self.run = run


def run_captured(target: Target, config: Config, *, timeout_s: float = RUN_TIMEOUT_S,
                 keep: Path | None = None, env: Mapping[str, str] | None = None,
                 workdir: Path | None = None) -> tuple[RunResult, list[dict[str, Any]]]:
    """One run of ``target`` under the interposer with capture on, in ``workdir`` (default:
    the current directory): the run as measured and its capture records; FailedCapture if it
    hung, failed or wrote no HDF5, MPI-IO or POSIX data file. ``keep``: where to keep what the
    run wrote (--keep); ``env``: more variables for the ranks."""
    if target.command:
        require_program(target.command[0])
    with tempfile.TemporaryDirectory(prefix="iotwin-capture-") as folder:
        path = Path(folder) / "capture.jsonl"
        executor = LocalExecutor(timeout_s=timeout_s, keep=keep,
                                 workdir=workdir or Path.cwd(),
                                 env={**(env or {}), CAPTURE_VARIABLE: str(path)})
        result = executor.run_once(target, config)
        records = read_capture(path)
    if result.status == "timeout":
        raise FailedCapture(f"{target.label} hung: {result.error}", result)
    if not records and (result.ok or result.error == NO_HDF5_IO):
        failed = RunResult("failed", phases=result.phases, reports=result.reports,
                           error=NO_HDF5_IO)
        raise FailedCapture(f"{target.label} wrote no HDF5, MPI-IO or POSIX data file: the "
                            f"interposer saw no H5Fcreate / H5Fopen, MPI_File_open or POSIX data "
                            f"file (1 MiB written by a process, or named by a files rule) whose "
                            f"file was closed", failed)
    if not result.ok:
        raise FailedCapture(f"{target.label} failed: {result.error}", result)
    return result, records


@dataclass(frozen=True)
class CapturedProgram:
    """A program's run of the default config and the workload captured from it."""

    run: RunResult
    workload: Workload
    not_modelled: list[str]  # what the program did that the workload cannot express

    def summary(self) -> str:
        """What was captured, in one line: file sessions and the files they stand for,
        datasets, and the bytes the run wrote through each API (the interposer's reports)."""
        ranks, sessions = int(self.workload["ranks"]), self.workload["files"]
        files = sum({"shared": 1, "per-rank": ranks}.get(s.get("mode", "shared"))
                    or int(s.get("groups", 1)) for s in sessions)
        datasets = sum(len(s["datasets"]) for s in sessions)
        written: dict[str, int] = {}
        for report in self.run.reports:
            if isinstance(report.get("bytes"), int):
                api = str(report.get("api", "hdf5"))
                written[api] = written.get(api, 0) + report["bytes"]
        by_api = ", ".join(f"{api} {nbytes:,} B ({nbytes / 2**20:.3g} MiB)"
                           for api, nbytes in sorted(written.items())) or "none reported"
        measured = self.run.phases.get("compute_s")
        in_run = f" (the run's time outside I/O calls: {measured:.3g} s)" if measured else ""
        return (f"{len(sessions)} file session(s) ({files} file(s)), {datasets} dataset(s); "
                f"bytes written: {by_api}; computation {compute_s(self.workload):.3g} s{in_run}")


def capture_program(target: Target, *, config: Config | None = None,
                    timeout_s: float = RUN_TIMEOUT_S, env: Mapping[str, str] | None = None,
                    workdir: Path | None = None, keep: Path | None = None) -> CapturedProgram:
    """Run ``target``'s program once under ``config`` (default: none) in ``workdir`` and
    capture its workload, named after the program, its files relative to ``workdir``."""
    workdir = Path(os.path.abspath(workdir or Path.cwd()))
    result, records = run_captured(target, config or {}, timeout_s=timeout_s, env=env,
                                   workdir=workdir, keep=keep)
    records = records_in(workdir, records)
    # named after the program as the store shows it: a workload's text holds no control character
    workload = workload_from_capture(records, printable(Path(target.command[0]).name),
                                     printable(" ".join(target.command)),
                                     flavour_of(target, env).name)
    return CapturedProgram(result, workload, unsupported(records))


def records_in(workdir: Path, records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Capture records of a program run in ``workdir``, each file named relative to it;
    CaptureError for a file outside it."""
    return [{**record, "file": file_in(workdir, str(record["file"]))} for record in records]


def file_in(workdir: Path, name: str) -> str:
    """The file the program named ``name``, relative to its working directory; CaptureError
    if it lies outside."""
    absolute = os.path.normpath(os.path.join(workdir, name))
    relative = os.path.relpath(absolute, workdir)
    if relative == ".." or relative.startswith(".." + os.sep):
        raise CaptureError(f"{name}: written outside the working directory {workdir}: a "
                           f"workload names its files inside the directory it runs in (give "
                           f"--workdir a folder that holds every file the program writes)")
    return relative


def program_target(command: Sequence[str], ranks: int) -> Target:
    """The program to capture on ``ranks`` ranks; UserError when none is named."""
    if not command:
        raise UserError("name the program to capture after --")
    return Target(ranks=ranks, command=tuple(command))


def capture_records(command: Sequence[str], ranks: int, *,
                    config: Config | None = None, timeout_s: float = RUN_TIMEOUT_S,
                    keep: Path | None = None, workdir: Path | None = None
                    ) -> list[dict[str, Any]]:
    """Run ``command`` once on ``ranks`` ranks under the interposer with capture on: the
    records as the interposer wrote them."""
    return run_captured(program_target(command, ranks), config or {}, timeout_s=timeout_s,
                        keep=keep, workdir=workdir)[1]
