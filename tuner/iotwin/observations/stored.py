"""Observations from the runs a store holds: the median rate of each measured (workload,
ranks, config) of a platform, its workload rebuilt from the kernel's own description."""

from __future__ import annotations

import statistics

from iotwin.model.calibration import Observation
from iotwin.store.database import Evaluation, Store
from iotwin.workloads.types import Workload
from iotwin.workloads.workload import kernel_workload


def observations_from_store(store: Store, platform: str, campaign_id: int | None = None
                            ) -> tuple[list[Observation], list[str]]:
    """Measured runs of a platform (or of one campaign) as observations: the median rate of
    each (workload, ranks, config); and notes on what could not be used."""
    grouped: dict[tuple[str, int, str], list[Evaluation]] = {}
    for row in store.evaluations(campaign_id, platform=platform, status="ok"):
        if row.source != "sim" and row.rate_mbs:
            grouped.setdefault((row.workload, row.ranks, row.config_hash), []).append(row)
    workloads: dict[tuple[str, int], Workload | None] = {}
    observations: list[Observation] = []
    notes: list[str] = []
    for (label, ranks, _), rows in grouped.items():
        if (label, ranks) not in workloads:
            workloads[(label, ranks)] = _workload_of_label(label, ranks, notes)
        workload = workloads[(label, ranks)]
        if workload is not None:
            observations.append(Observation(workload, rows[0].config,
                                            statistics.median(r.rate_mbs or 0 for r in rows)))
    return observations, notes


def _workload_of_label(label: str, ranks: int, notes: list[str]) -> Workload | None:
    kernel, *args = label.split()
    try:
        return kernel_workload(kernel, ranks, args)
    except Exception as error:  # a program that is not a kernel: nothing to simulate
        notes.append(f"skipped `{label}` x{ranks}: {error}")
        return None
