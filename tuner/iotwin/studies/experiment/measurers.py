"""What decides a cell's rate: the platform model, the twin or this machine, and a cell's
result."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from iotwin.config.types import Config
from iotwin.core.hashing import config_hash
from iotwin.core.run_records import RunResult
from iotwin.executors import make_executor
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.studies.experiment.spec import ExperimentSpec, WorkloadSpec
from iotwin.workloads.workload import kernel_workload


@dataclass
class CellResult:
    platform: str
    workload: WorkloadSpec
    label: str
    config: Config
    runs: list[RunResult] = field(default_factory=list)
    x: Any = None  # the swept value, if any
    campaign_id: int | None = None
    published_mbs: float | None = None
    #: how a searched config was found: {"strategy": ..., "simulations": ...}
    tuning: dict[str, Any] | None = None

    @property
    def rates(self) -> list[float]:
        return [r.rate_mbs for r in self.runs if r.ok and r.rate_mbs]

    @property
    def rate_mbs(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None

    def row(self) -> dict[str, Any]:
        rates = self.rates
        return {"platform": self.platform, "workload": self.workload.name,
                "ranks": self.workload.ranks, "config": self.label,
                "x": "" if self.x is None else self.x,
                "rate_mbs": _rounded(self.rate_mbs),
                "rate_min_mbs": _rounded(min(rates)) if rates else "",
                "rate_max_mbs": _rounded(max(rates)) if rates else "",
                "runs": len(self.runs), "ok": len(rates),
                "published_mbs": "" if self.published_mbs is None else self.published_mbs,
                "campaign": "" if self.campaign_id is None else self.campaign_id,
                "strategy": (self.tuning or {}).get("strategy", ""),
                "simulations": (self.tuning or {}).get("simulations", ""),
                "settings": json.dumps(self.config, sort_keys=True)}


def _rounded(value: float | None) -> float | str:
    return "" if value is None else round(value, 3)


#: measures configs on (platform, workload): list of repetitions per config
Measurer = Callable[[str, WorkloadSpec, Sequence[Config]], list[list[RunResult]]]


def sim_measurer(ranks_per_node: Mapping[str, int] | None = None) -> Measurer:
    """Rates predicted by the platform model (one batch of simulations per call), with the
    ranks placed ``ranks_per_node[platform]`` per node where given. A simulation is
    deterministic: a config simulated before on the same platform and workload (the default,
    a search's best when its cell is measured) is looked up, not run again."""

    done: dict[tuple[str, WorkloadSpec, str], list[RunResult]] = {}

    def run(platform: str, workload: WorkloadSpec, configs: Sequence[Config]) -> None:
        work = kernel_workload(workload.kernel, workload.ranks, list(workload.args))
        if ranks_per_node and platform in ranks_per_node:
            work["ranks_per_node"] = ranks_per_node[platform]
        results = simulate(load_platform(platform), work, list(configs), jobs=2)
        for config, r in zip(configs, results, strict=True):
            done[(platform, workload, config_hash(config))] = [
                RunResult("ok", total_s=r.time_s, rate_mbs=r.rate_mbs, phases=dict(r.phases))
                if r.ok else RunResult("failed", error=r.error)]

    def measure(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
                ) -> list[list[RunResult]]:
        keys = [(platform, workload, config_hash(c)) for c in configs]
        new = {key: config for key, config in zip(keys, configs, strict=True)
               if key not in done}
        if new:
            run(platform, workload, list(new.values()))
        return [done[key] for key in keys]

    return measure


def executor_measurer(measure: str, repetitions: int, truth_seed: int = 0) -> Measurer:
    """Each config run ``repetitions`` times on the twin or on this machine."""
    executors: dict[str, Any] = {}

    def executor(platform: str) -> Any:
        if platform not in executors:
            name = "twin" if measure == "twin" else "local"
            executors[platform] = make_executor(name, platform, truth_seed=truth_seed)
        return executors[platform]

    def run(platform: str, workload: WorkloadSpec, configs: Sequence[Config]
            ) -> list[list[RunResult]]:
        return [[executor(platform).run_once(workload.target, config, seed=rep)
                 for rep in range(repetitions)] for config in configs]

    return run


def measurer_for(spec: ExperimentSpec) -> Measurer:
    if spec.measure == "sim":
        return sim_measurer(spec.ranks_per_node)
    return executor_measurer(spec.measure, spec.repetitions)
