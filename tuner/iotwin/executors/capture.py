"""Capturing a program's workload: one run under the interposer with capture on
(IOTWIN_CAPTURE), its records turned into a workload by :mod:`iotwin.workloads.capture`."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.core.errors import UserError
from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.core.records import RunResult, Target
from iotwin.executors.launch import require_program
from iotwin.executors.local import NO_HDF5_IO, LocalExecutor
from iotwin.executors.mpi_flavour import flavour_of
from iotwin.workloads.capture import (
    CAPTURE_VARIABLE,
    CaptureError,
    read_capture,
    unsupported,
    workload_from_capture,
)


def run_captured(target: Target, config: Config, *, timeout_s: float = RUN_TIMEOUT_S,
                 keep: Path | None = None, env: Mapping[str, str] | None = None
                 ) -> tuple[RunResult, list[dict[str, Any]]]:
    """One run of ``target`` under the interposer with capture on: the run as measured and
    its capture records; CaptureError if it hung, failed or wrote no HDF5 or MPI-IO file.
    ``keep``: where to keep the directory the program ran in (with the files it wrote);
    ``env``: more variables for the ranks."""
    if target.command:
        require_program(target.command[0])
    with tempfile.TemporaryDirectory(prefix="iotwin-capture-") as folder:
        path = Path(folder) / "capture.jsonl"
        executor = LocalExecutor(timeout_s=timeout_s, keep_last=keep,
                                 env={**(env or {}), CAPTURE_VARIABLE: str(path)})
        result = executor.run_once(target, config)
        records = read_capture(path)
    if result.status == "timeout":
        raise CaptureError(f"{target.label} hung: {result.error}")
    if not records and (result.ok or result.error == NO_HDF5_IO):
        raise CaptureError(f"{target.label} wrote no HDF5 or MPI-IO file: the interposer saw "
                           f"no H5Fcreate / H5Fopen or MPI_File_open whose file was closed")
    if not result.ok:
        raise CaptureError(f"{target.label} failed: {result.error}")
    return result, records


@dataclass(frozen=True)
class CapturedProgram:
    """A program's run of the default config and the workload captured from it."""

    run: RunResult
    workload: dict[str, Any]
    not_modelled: list[str]  # what the program did that the workload cannot express


def capture_program(target: Target, *, config: Config | None = None,
                    timeout_s: float = RUN_TIMEOUT_S, env: Mapping[str, str] | None = None
                    ) -> CapturedProgram:
    """Run ``target``'s program once under ``config`` (default: none) and capture its
    workload, named after the program."""
    result, records = run_captured(target, config or {}, timeout_s=timeout_s, env=env)
    workload = workload_from_capture(records, Path(target.command[0]).name,
                                     " ".join(target.command))
    workload["mpi"] = flavour_of(target, env).name
    return CapturedProgram(result, workload, unsupported(records))


def program_target(command: Sequence[str], ranks: int) -> Target:
    """The program to capture on ``ranks`` ranks; UserError when none is named."""
    if not command:
        raise UserError("name the program to capture after --")
    return Target(ranks=ranks, command=tuple(command))


def capture_records(command: Sequence[str], ranks: int, *,
                    config: Config | None = None, timeout_s: float = RUN_TIMEOUT_S,
                    keep: Path | None = None) -> list[dict[str, Any]]:
    """Run ``command`` once on ``ranks`` ranks under the interposer with capture on: the
    records as the interposer wrote them."""
    return run_captured(program_target(command, ranks), config or {}, timeout_s=timeout_s,
                        keep=keep)[1]
