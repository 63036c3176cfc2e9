"""Reading what the interposer reports about a run (``IOTWIN_REPORT``, see interposer/README.md).

The interposer appends one JSON object per file it saw (HDF5 or MPI-IO; ``iotwin_report``) and
one for the run (``iotwin_run``, at MPI_Finalize: the config's rejection, the ``files`` rules
that matched no file, the bytes written outside HDF5 and MPI-IO). This module reads them back
and answers the questions ``iotwin run`` asks: how many bytes were written, which requested
settings took effect and which did not, and whether the interposer refused the config.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.config import schema as config

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


def file_reports(reports: list[Report]) -> list[Report]:
    """The reports of files: every line but the run's own record and unreadable ones."""
    return [report for report in reports if "iotwin_run" not in report
            and "unreadable" not in report]


def run_records(reports: list[Report]) -> list[Report]:
    """The run's own records: one (rank 0's at MPI_Finalize), or one per process of a program
    that exited without finalizing MPI."""
    return [report for report in reports if "iotwin_run" in report]


def config_rejection(reports: list[Report]) -> str | None:
    """Why the interposer refused the run's config (it then ran the program without it), or
    None."""
    for report in run_records(reports) + file_reports(reports):
        if report.get("config_error"):  # without the path of the copy the run read, nor a
            # line of it: the copy is the config as dumped, not the user's file
            copy = re.escape(str(report.get("config")))
            return re.sub(rf"^{copy}(:\d+)?: ", "", str(report["config_error"]), count=1)
    return None


def unmatched_rules(reports: list[Report]) -> list[str]:
    """The config's ``files`` rules that matched no file the program opened through HDF5 or
    MPI-IO, in words ("files[1] (match: \"*.dat\") matched no file")."""
    records = run_records(reports)
    if not records:
        return []
    unmatched = [{(r["rule"], r["match"]) for r in record.get("unmatched_rules", [])}
                 for record in records]
    return [f"{rule} (match: {json.dumps(match)}) matched no file"
            for rule, match in sorted(set.intersection(*unmatched))]


@dataclass(frozen=True)
class OutsideWrites:
    """What the program wrote through plain POSIX or C stdio calls, outside HDF5 and MPI-IO:
    counted by the interposer, not tuned."""

    bytes: int
    files: int
    examples: tuple[str, ...]

    def describe(self) -> str:
        named = f" (e.g. {', '.join(self.examples[:3])})" if self.examples else ""
        return (f"{self.bytes / 2**20:.1f} MiB written outside HDF5 and MPI-IO, not tuned: "
                f"{self.files} file{'s' if self.files != 1 else ''}{named}")


def outside_writes(reports: list[Report]) -> OutsideWrites | None:
    """The run's writes outside HDF5 and MPI-IO, or None when it made none (or no record)."""
    outside = [record.get("outside") or {} for record in run_records(reports)]
    total = sum(int(o.get("bytes", 0)) for o in outside)
    if total <= 0:
        return None
    examples = tuple(name for o in outside for name in o.get("examples", []))
    return OutsideWrites(total, sum(int(o.get("files", 0)) for o in outside), examples)


def only_read(report: Report) -> bool:
    """Whether a file report is of a file the program opened, not created, and never wrote."""
    return (report.get("how") != "create" and not report.get("bytes")
            and not report.get("writes"))


def total_bytes(reports: list[Report]) -> int | None:
    """Bytes written over all files, or None when no report says."""
    counts = [report["bytes"] for report in file_reports(reports)
              if isinstance(report.get("bytes"), int)]
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


@dataclass(frozen=True)
class IoTime:
    """When a program did its HDF5 and MPI-IO I/O, from the reports' spans (earliest rank's
    open to latest rank's close, epoch seconds) and timings (time inside the file's calls)."""

    span_s: float  # from the first file's open to the last file's close
    io_s: float  # inside I/O calls within it: open, writes, flushes, close

    @property
    def compute_s(self) -> float:
        """The time within the span outside I/O calls: the program's computation between its
        calls and between its file sessions."""
        return self.span_s - self.io_s


@dataclass(frozen=True)
class _Session:
    """One file report's span and its time inside the file's calls (the slowest rank's)."""

    opened: float
    closed: float
    calls_s: float
    ranks: int


def io_time(reports: list[Report]) -> IoTime | None:
    """The program's I/O time, from its first HDF5 or MPI-IO file open to its last close: its
    time inside the files' I/O calls (each file's ``timings``: open, writes, flushes, close,
    the slowest rank's each, and an MPI-IO file's ``reads``), the rest counted as computation;
    None without spans.

    Files open at once are added up when their whole communicator opened them (a second file
    the same ranks open inside a session) and counted once, the slowest, when they belong to
    some of the ranks each (per-rank or per-group files written side by side); never more than
    the time they were open."""
    sessions = sorted(_sessions(reports), key=lambda s: s.opened)
    if not sessions:
        return None
    world = max([s.ranks for s in sessions] + [int(r.get("ranks") or 1)
                                                for r in run_records(reports)])
    io_s, group = 0.0, [sessions[0]]
    for session in sessions[1:]:
        if session.opened < max(s.closed for s in group):
            group.append(session)
            continue
        io_s += _overlapping_io(group, world)
        group = [session]
    io_s += _overlapping_io(group, world)
    span_s = max(s.closed for s in sessions) - sessions[0].opened
    return IoTime(span_s, min(io_s, span_s))


def _sessions(reports: list[Report]) -> list[_Session]:
    """The file reports with a span; a report without timings counts as I/O from open to
    close."""
    found = []
    for report in file_reports(reports):
        span = report.get("span")
        if not isinstance(span, dict):
            continue
        opened, closed = float(span["open"]), float(span["closed"])
        timings = report.get("timings") or {}
        calls = [float(v) for v in timings.values() if isinstance(v, (int, float))]
        reads_s = float((report.get("reads") or {}).get("seconds") or 0.0)   # MPI-IO's reads
        found.append(_Session(opened, closed, sum(calls) + reads_s if calls else closed - opened,
                              int(report.get("ranks") or 1)))
    return found


def _overlapping_io(group: list[_Session], world: int) -> float:
    whole = sum(s.calls_s for s in group if s.ranks >= world)
    parts = max((s.calls_s for s in group if s.ranks < world), default=0.0)
    return min(whole + parts, max(s.closed for s in group) - group[0].opened)


def setting_outcomes(reports: list[Report]) -> list[SettingOutcome]:
    """Every requested setting of every file and dataset the program created or wrote: took
    effect, or not and why (a file it only opened, as IOR's HDF5 back end opens its file
    through MPI-IO to read its size, is no tuning target: its settings are not shown).

    The interposer's ``not_effective`` entries are authoritative (they carry the reason); any
    other applied setting is checked against what was read back, so a setting that silently
    did not take effect is still shown as not effective.
    """
    hint_keys = _config_keys_of_hints()
    outcomes: list[SettingOutcome] = []
    created = _posix_files_created(reports)
    for report in file_reports(reports):
        if only_read(report) or _opened_after_its_creator(report, created):
            continue
        file = str(report.get("file", "?"))
        outcomes += _section_outcomes(file, report, hint_keys)
        for dataset in report.get("datasets", []):
            where = f"{file}:{dataset.get('name', '?')}"
            outcomes += _section_outcomes(where, dataset, hint_keys, "dataset.")
    return outcomes


def _posix_files_created(reports: list[Report]) -> set[str]:
    """The POSIX data files some process of the run created (each process reports its own
    open of a file)."""
    return {str(report.get("file")) for report in file_reports(reports)
            if report.get("api") == "posix" and report.get("how") == "create"}


def _opened_after_its_creator(report: Report, created: set[str]) -> bool:
    """A process's report of a shared POSIX file another process of the run created (IOR's
    shared file without -F): its layout is the creator's, which that process reports; this
    one's "this file was opened" is no setting that failed to act."""
    return (report.get("api") == "posix" and report.get("how") != "create"
            and str(report.get("file")) in created)


def _section_outcomes(where: str, section: Report, hint_keys: dict[str, str],
                      block: str = "") -> list[SettingOutcome]:
    """`block`: the config block a dataset's keys sit in ("dataset."), which its applied keys
    leave out and its not-effective entries name: a setting is one outcome under one name."""
    not_effective = {str(entry.get("key")).removeprefix(block): entry
                     for entry in section.get("not_effective", []) if isinstance(entry, dict)}
    read_back = _flatten(section.get("effective") or {})
    outcomes = []
    for key, requested in _flatten(section.get("applied") or {}).items():
        name = hint_keys.get(key, f"mpiio.{key}" if key.startswith("hints.") else key)
        if name in not_effective:
            continue
        got = read_back.get(key)
        same = got is not None and (str(got) == str(requested) or _hdf5_chooses(key, requested))
        outcomes.append(SettingOutcome(where, name, requested, got, same,
                                       None if same else "read back differently"))
    outcomes += [SettingOutcome(where, key, entry.get("requested"), entry.get("effective"), False,
                                entry.get("reason")) for key, entry in not_effective.items()]
    return outcomes


def _hdf5_chooses(key: str, requested: Any) -> bool:
    """An alloc time of "default" asks HDF5 to choose one by layout and driver (parallel HDF5:
    early); the one read back is then what was asked, as the interposer judges it."""
    return key == "alloc_time" and requested == "default"


def _config_keys_of_hints() -> dict[str, str]:
    """{"hints.striping_factor": "lustre.stripe_count", "hints.cb_nodes": "mpiio.cb_nodes"...};
    any other hint is a free-form one (mpiio.hints.NAME)."""
    schema = config.load_schema()
    return {f"hints.{key.hint}": f"{block}.{name}" for block, keys in schema.blocks.items()
            for name, key in keys.items() if key.hint}


def _flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """{"mpiio": {"cb_nodes": 2}} -> {"mpiio.cb_nodes": 2}; lists and scalars are leaves."""
    if not isinstance(tree, dict):
        return {prefix: tree} if prefix else {}
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat
