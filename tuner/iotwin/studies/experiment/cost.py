"""What an experiment will cost, before any cell runs: for each platform and workload, its
simulations (every config, sweep value, search budget and twin campaign's runs), each at the
cost iosim estimates for the workload's default config on that platform.

Real runs (``measure: local``) are counted but not timed: how long a program runs is what
they measure; their simulations (searches) are."""

from __future__ import annotations

from iotwin.core.cost import Cost, Driver, Limits
from iotwin.model.platforms import load_platform
from iotwin.model.sim_cost import batched, simulation_cost
from iotwin.studies.experiment.spec import (
    ConfigEntry,
    ExperimentSpec,
    WorkloadSpec,
    search_spec,
)
from iotwin.workloads.workload import kernel_workload


def experiment_cost(spec: ExperimentSpec, limits: Limits) -> Cost:
    """The experiment's estimated cost, refused (UserError naming the spec's field) when it
    is beyond ``limits``."""
    total: Cost | None = None
    for platform_name in spec.platforms:
        platform = load_platform(platform_name)
        for j, workload in enumerate(spec.workloads):
            work = kernel_workload(workload.kernel, workload.ranks, list(workload.args))
            if platform_name in spec.ranks_per_node:
                work["ranks_per_node"] = spec.ranks_per_node[platform_name]
            count, driver = _simulations(spec, workload)
            one = simulation_cost(platform, work, spec.source_file,
                                  memory_limit=limits.memory_bytes, where=f"workloads[{j}].")
            cell = batched(one, count, driver)
            total = cell if total is None else total.then(cell)
            limits.check(total)
    assert total is not None  # a spec has a platform and a workload (its schema)
    return total


def _simulations(spec: ExperimentSpec, workload: WorkloadSpec) -> tuple[int, Driver]:
    """How many simulations the workload's cells make on one platform, and the entry of the
    spec that makes most of them."""
    counts = [(_entry_simulations(spec, entry, workload), i)
              for i, entry in enumerate(spec.configs)]
    largest, at = max(counts)
    entry = spec.configs[at]
    field = {"search": "search.budget", "campaign": "campaign.budget",
             "sweep": "sweep.values"}.get(entry.kind, entry.kind)
    return max(1, sum(c for c, _ in counts)), Driver(
        f"{spec.source_file}: configs[{at}].{field}", largest)


def _entry_simulations(spec: ExperimentSpec, entry: ConfigEntry, workload: WorkloadSpec) -> int:
    simulated = spec.measure != "local"
    repetitions = spec.repetitions if spec.measure == "twin" else 1
    if entry.kind == "search":
        return search_spec(entry, workload).budget
    if entry.kind == "campaign":
        body = entry.body
        return int(body["budget"]) * len(body["seeds"]) * int(body["repetitions"])
    if not simulated:
        return 0
    if entry.kind == "sweep":
        return len(entry.body["values"]) * repetitions
    return repetitions
