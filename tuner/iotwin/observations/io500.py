"""IO500 submissions as observations: each system description's model and IOR's write phases,
with the rates the submission measured (../shared/data/io500/train.json's records).

A case is one submission and one phase (``easy-write``, ``hard-write``): the model written from
its description (``iotwin.model.io500_description``), the phase as IOR's workload on the
submission's client nodes and processes (``iotwin.workloads.ior``), in IO500's directories
(``ior-easy/``, ``ior-hard/``: the model's per-directory layouts), writing ``IO500_SECONDS``
at the least of the model's storage and client peaks, or ``segments`` a process where a
caller bounds the simulation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.model.io500_description import load_records, sheet_of_record
from iotwin.model.platform_sheet import parse_sheet, platform_tree
from iotwin.model.platforms import Platform, parse_platform
from iotwin.workloads.ior import IO500_SECONDS, io500_arguments, ior_workload, parse_ior
from iotwin.workloads.types import Workload

PHASES = {"easy-write": "ior_easy_write", "hard-write": "ior_hard_write"}
#: where IO500 writes each phase's files (its directories' layouts are the model's)
PHASE_FILES = {"easy-write": "ior-easy/ior_file_easy", "hard-write": "ior-hard/IOR_file"}


@dataclass(frozen=True)
class Io500Case:
    submission: int
    system: str
    phase: str
    measured_mbs: float
    record: Mapping[str, Any]

    @property
    def ranks(self) -> int:
        return int(self.record["client_nodes"]) * int(self.record["procs_per_node"])

    @property
    def nodes(self) -> int:
        return int(self.record["client_nodes"])


def io500_cases(path: str | Path, phases: Sequence[str] = tuple(PHASES)) -> list[Io500Case]:
    """One case per submission of ``path`` and phase it measured."""
    cases = []
    for record in load_records(path):
        measured = record.get("measured_mbs") or {}
        for phase in phases:
            rate = measured.get(PHASES[phase])
            if rate:
                cases.append(Io500Case(int(record["id"]), str(record["system"]), phase,
                                       float(rate), record))
    return cases


def case_platform(case: Io500Case, defaults: Mapping[str, Any] | None = None) -> Platform:
    origin = f"IO500 submission {case.submission}"
    sheet = parse_sheet(sheet_of_record(case.record, origin), origin)
    return parse_platform(platform_tree(sheet, defaults), origin)


def phase_workload(platform: Platform, phase: str, ranks: int, nodes: int,
                   segments: int | None = None, seconds: float = IO500_SECONDS) -> Workload:
    """IO500's ``phase`` on ``ranks`` processes over ``nodes`` nodes: ``seconds`` of writing at
    the least of the model's storage and client peaks, or ``segments`` a process."""
    volume = None
    if segments is None:
        peak = min(platform.storage_peak_mbs, platform.client_peak_mbs(nodes))
        volume = int(seconds * peak * 1e6)
    arguments = [*io500_arguments(phase, ranks, volume_bytes=volume, segments=segments),
                 "-o", PHASE_FILES[phase]]
    command = "ior " + " ".join(arguments)
    return ior_workload(parse_ior(arguments), ranks, nodes, command)
