"""Reading what the interposer reports about a run (``IOTWIN_REPORT``, see interposer/README.md).

The interposer appends one JSON object per HDF5 file to the report file, at the file's close.
This module reads them back and answers the questions ``iotwin run`` asks: how many bytes were
written, and which requested settings took effect and which did not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Report = dict[str, Any]


def read_reports(path: Path) -> list[Report]:
    """Every JSON object in the report file (JSON lines); [] if the file was never written.

    A line that is not JSON (a rank killed mid-write) becomes ``{"unreadable": line}`` so that
    it shows up in the run's record instead of vanishing.
    """
    if not path.exists():
        return []
    reports: list[Report] = []
    for line in path.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError:
            parsed = {"unreadable": line[:500]}
        reports.append(parsed if isinstance(parsed, dict) else {"unreadable": line[:500]})
    return reports


def total_bytes(reports: list[Report]) -> int | None:
    """Bytes written over all files, or None when no report says."""
    counts = [report["bytes"] for report in reports if isinstance(report.get("bytes"), int)]
    return sum(counts) if counts else None


@dataclass(frozen=True)
class SettingOutcome:
    """One requested setting and what the open file says about it."""

    file: str
    key: str
    requested: Any
    effective: Any
    took_effect: bool
    reason: str | None = None


def setting_outcomes(reports: list[Report]) -> list[SettingOutcome]:
    """Requested settings of every file, effective ones first per file, then those that were not."""
    outcomes: list[SettingOutcome] = []
    for report in reports:
        file = str(report.get("file", "?"))
        not_effective = {entry.get("key"): entry for entry in report.get("not_effective", [])
                         if isinstance(entry, dict)}
        effective = _flatten(report.get("effective", {}))
        for key, requested in _flatten(report.get("applied", {})).items():
            if key in not_effective:
                continue
            outcomes.append(SettingOutcome(file, key, requested, effective.get(key), True))
        for key, entry in not_effective.items():
            outcomes.append(SettingOutcome(file, str(key), entry.get("requested"),
                                           entry.get("effective"), False, entry.get("reason")))
    return outcomes


def _flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """{"mpiio": {"cb_nodes": 2}} -> {"mpiio.cb_nodes": 2}; lists and scalars are leaves."""
    if not isinstance(tree, dict):
        return {prefix: tree} if prefix else {}
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat
