"""IO500 submissions as observations: each system description's model and IOR's write phases,
with the rates the submission measured (validation/data/io500-train.json's records).

A case is one submission and one phase (``easy-write``, ``hard-write``): the model written from
its description (``iotwin.model.io500_description``), the phase as IOR's workload on the
submission's client nodes and processes (``iotwin.workloads.ior``), in IO500's directories
(``ior-easy/``, ``ior-hard/``: the model's per-directory layouts), writing ``IO500_SECONDS``
at the least of the model's storage and client peaks, or ``segments`` a process where a
caller bounds the simulation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

from iotwin.model.family import (
    FamilyCase,
    accuracy,
    constant_bounds,
    fit_family,
    leave_one_system_out,
    predict_cases,
)
from iotwin.model.io500_description import load_records, sheet_of_record
from iotwin.model.platform_sheet import parse_sheet, platform_tree, sheet_defaults
from iotwin.model.platforms import Platform, parse_platform
from iotwin.workloads.ior import (
    IO500_FILES,
    IO500_SECONDS,
    io500_arguments,
    ior_workload,
    parse_ior,
)
from iotwin.workloads.types import Workload

PHASES = {"easy-write": "ior_easy_write", "hard-write": "ior_hard_write"}


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
    """One case per submission of ``path`` and phase it measured, each named by its system as
    :func:`system_names` spells it."""
    return cases_of(load_records(path), phases)


def cases_of(records: Sequence[Mapping[str, Any]], phases: Sequence[str] = tuple(PHASES)
             ) -> list[Io500Case]:
    """:func:`io500_cases` of records already read."""
    return [Io500Case(int(record["id"]), system, phase, rate, record)
            for record, system, phase, rate in _measured(records, phases)]


def case_count(records: Sequence[Mapping[str, Any]], phases: Sequence[str] = tuple(PHASES)
               ) -> tuple[int, int]:
    """How many cases ``records`` make and of how many systems, counted without building a
    case: what bounds a family calibration, which refuses a table too large before any work."""
    cases, systems = 0, set()
    for _, system, _, _ in _measured(records, phases):
        cases += 1
        systems.add(system)
    return cases, len(systems)


def _measured(records: Sequence[Mapping[str, Any]], phases: Sequence[str]
              ) -> Iterator[tuple[Mapping[str, Any], str, str, float]]:
    """(record, its system's name, phase, measured rate) of each phase a record measured."""
    names = system_names(records)
    for record in records:
        measured = record.get("measured_mbs") or {}
        for phase in phases:
            rate = measured.get(PHASES[phase])
            if rate:
                yield record, names[str(record["system"])], phase, float(rate)


def system_names(records: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each system name of ``records`` -> the name of its first record of the same system:
    names that differ only in case, spaces and punctuation are one system (the IO500 list has
    one Google submission under "Exascaler on GCP" and again under "Exascaler-on-GCP"), which
    leave-one-system-out must hold out together."""
    first: dict[str, str] = {}
    names: dict[str, str] = {}
    for record in records:
        name = str(record["system"])
        if name not in names:
            names[name] = first.setdefault(" ".join(re.findall(r"[a-z0-9]+", name.lower())),
                                           name)
    return names


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
        volume = int(seconds * platform.peak_mbs(nodes) * 1e6)
    arguments = [*io500_arguments(phase, ranks, volume_bytes=volume, segments=segments),
                 "-o", IO500_FILES[phase]]
    command = "ior " + " ".join(arguments)
    return ior_workload(parse_ior(arguments), ranks, nodes, command)


#: the fit simulates each case at this volume: the rate has settled (the phase's open and
#: final flush are a few percent of it) and every case simulates in seconds
FIT_SECONDS = 30.0
#: values the family fit's coarse scan tries per constant before its gradient fit
SCAN_POINTS = 3


def family_cases(found: str | Path | Sequence[Io500Case], seconds: float = FIT_SECONDS,
                 segments: int | None = None) -> list[FamilyCase]:
    """The IO500 cases ``found`` (or those of the file it names) as a family calibration's
    cases: each model rebuilt from its description on the constants tried, each workload
    fixed at the prior model's volume."""
    volume = (f"{segments} segments a process" if segments
              else f"{seconds:g} s at the prior model's peak")
    cases = []
    for case in io500_cases(found) if isinstance(found, str | Path) else found:
        prior = case_platform(case)
        workload = phase_workload(prior, case.phase, case.ranks, case.nodes, segments=segments,
                                  seconds=seconds)
        cases.append(FamilyCase(case.system, f"{case.submission} {case.phase}",
                                partial(case_platform, case), workload, case.measured_mbs,
                                volume))
    return cases


def family_calibration(cases: Sequence[FamilyCase], path: str | Path, *,
                       max_evaluations: int = 40, refit_evaluations: int = 12, jobs: int = 2,
                       progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fit the family constants to ``cases`` (:func:`family_cases` of the submissions of
    ``path``), then hold out each system in turn: the document data/family-io500.yaml holds
    (constants, priors, per-case predictions before, fitted and held out, and the accuracy of
    each)."""
    base = sheet_defaults()
    measured = [c.measured_mbs for c in cases]
    before = predict_cases(cases, base, jobs)
    fitted = fit_family(cases, base, max_evaluations=max_evaluations, scan_points=SCAN_POINTS,
                        jobs=jobs, progress=progress)
    held_out = leave_one_system_out(cases, base, fitted.constants,
                                    max_evaluations=refit_evaluations, jobs=jobs,
                                    progress=progress)
    systems = len({c.system for c in cases})
    document: dict[str, Any] = {
        "fitted": f"family calibration on {len(cases)} IO500 write phases of {systems} systems "
                  f"({Path(path).name}, {date.today().isoformat()})",
        "constants": {k: float(f"{v:.4g}") for k, v in fitted.constants.items()},
        "priors": {k: v[0] for k, v in constant_bounds(base).items()},
        "volume": "; ".join(sorted({c.volume for c in cases})),
        "evaluations": fitted.evaluations,
        "ranks": [min(c.workload["ranks"] for c in cases),
                  max(c.workload["ranks"] for c in cases)],
    }
    for name, rates in (("before", before), ("fitted_all", fitted.predicted),
                        ("leave_one_system_out", held_out)):
        document[name] = {phase: accuracy(*_phase(rates, measured, cases, phase))
                          for phase in ("all", *PHASES)}
    document["cases"] = [
        {"case": c.label, "system": c.system, "measured_mbs": round(c.measured_mbs),
         "before_mbs": _round(b), "fitted_mbs": _round(f), "held_out_mbs": _round(h)}
        for c, b, f, h in zip(cases, before, fitted.predicted, held_out, strict=True)]
    return document


def _phase(rates: Sequence[float | None], measured: Sequence[float],
           cases: Sequence[FamilyCase], phase: str) -> tuple[list[float | None], list[float]]:
    keep = [i for i, c in enumerate(cases) if phase == "all" or c.label.endswith(phase)]
    return [rates[i] for i in keep], [measured[i] for i in keep]


def _round(rate: float | None) -> float | None:
    return None if rate is None else round(rate)
