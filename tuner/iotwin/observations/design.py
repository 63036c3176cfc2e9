"""Calibration designs: the runs a calibration campaign makes, as data.

A design (``tuner/iotwin/data/calibration-NAME.yaml``) lists probes: a kernel run on a number
of nodes under one tuning config, chosen so that one mechanism of the platform model decides
its time, and the free parameters it excites. :func:`measure_design` runs every probe through
an executor (a real machine or the twin) and stores each repetition; the observations it
returns, one median per probe, are what :func:`iotwin.model.calibration.fit` fits the design's
parameters to.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.config.validation import validate_config
from iotwin.core import paths
from iotwin.core.cost import Cost, Driver
from iotwin.core.errors import InputError, UserError
from iotwin.core.run_records import Target
from iotwin.core.yaml_files import check_keys, read_input
from iotwin.executors.base import Executor
from iotwin.model.calibration import Observation
from iotwin.model.platforms import Platform
from iotwin.model.sim_cost import batched, fit_cost, simulation_cost
from iotwin.store.database import Store
from iotwin.tuning.repetitions import measure, run_then_store
from iotwin.workloads.workload import kernel_workload

_DESIGN_KEYS = {"name", "kernel", "repetitions", "probes"}
_PROBE_KEYS = {"name", "excites", "why", "nodes", "args", "config"}


@dataclass(frozen=True)
class Probe:
    name: str
    excites: tuple[str, ...]  # the free parameters this probe's time depends on most
    why: str
    nodes: int
    args: tuple[str, ...]
    config: Config


@dataclass(frozen=True)
class Design:
    name: str
    kernel: str
    repetitions: int
    probes: tuple[Probe, ...]

    @property
    def parameters(self) -> list[str]:
        """Every parameter some probe excites: what a fit to this design can recover."""
        return sorted({name for probe in self.probes for name in probe.excites})

    def target(self, probe: Probe, platform: Platform) -> Target:
        ranks = probe.nodes * int(platform.data["compute"]["cores_per_node"])
        return Target(ranks=ranks, kernel=self.kernel, args=probe.args)


def design_path(name_or_path: str | Path) -> Path:
    path = Path(name_or_path)
    return path if path.suffix else paths.data_dir() / f"calibration-{name_or_path}.yaml"


def load_design(name_or_path: str | Path) -> Design:
    """A design by name (data/calibration-NAME.yaml) or by path; UserError naming the bad key."""
    path = design_path(name_or_path)
    if not path.exists():
        known = sorted(p.stem.removeprefix("calibration-")
                       for p in paths.data_dir().glob("calibration-*.yaml"))
        raise UserError(f"unknown calibration design {str(name_or_path)!r} "
                        f"(known: {', '.join(known)})")
    return read_input(path, "calibration design", parse_design)


def parse_design(data: Any, origin: str) -> Design:
    top = _mapping(data, origin, "", _DESIGN_KEYS)
    probes = top.get("probes")
    if not isinstance(probes, list) or not probes:
        raise InputError(origin, "probes", "expected a non-empty list of probes")
    return Design(_text(top, origin, "name"), _text(top, origin, "kernel"),
                  _count(top, origin, "repetitions"),
                  tuple(_probe(p, origin, f"probes[{i}]") for i, p in enumerate(probes)))


def _probe(data: Any, origin: str, path: str) -> Probe:
    probe = _mapping(data, origin, path, _PROBE_KEYS)
    excites, args = probe.get("excites"), probe.get("args", [])
    if not (isinstance(excites, list) and excites and all(isinstance(e, str) for e in excites)):
        raise InputError(origin, f"{path}.excites", "expected a list of parameter paths")
    if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
        raise InputError(origin, f"{path}.args", "expected a list of strings")
    return Probe(_text(probe, origin, "name", path), tuple(excites),
                 _text(probe, origin, "why", path), _count(probe, origin, "nodes", path),
                 tuple(args), validate_config(probe.get("config"), origin, f"{path}.config"))


def _mapping(data: Any, origin: str, path: str, allowed: set[str]) -> Mapping[str, Any]:
    return check_keys(data, sorted(allowed), origin, path)


def _text(data: Mapping[str, Any], origin: str, key: str, path: str = "") -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(origin, f"{path + '.' if path else ''}{key}", "expected a text")
    return value


def _count(data: Mapping[str, Any], origin: str, key: str, path: str = "") -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(origin, f"{path + '.' if path else ''}{key}",
                         f"expected an integer >= 1, got {value!r}")
    return value


def design_cost(design: Design, platform: Platform, source: str, *, simulated: bool,
                fit_evaluations: int, memory_limit: float | None = None) -> Cost:
    """What running the design and fitting to it will cost, before it starts: each probe's
    repetitions (simulations on a twin, at the largest probe's cost; real runs are counted,
    not timed) and the fit's ``fit_evaluations`` of every probe."""
    probes = [Observation(kernel_workload(design.kernel, design.target(probe, platform).ranks,
                                          probe.args), probe.config, 1.0)
              for probe in design.probes]
    driver = Driver(source, f"{len(probes)} probes x {design.repetitions} runs")
    fit = fit_cost(platform, probes, driver, evaluations=fit_evaluations,
                   memory_limit=memory_limit)
    if not simulated:
        return fit
    largest = max(probes, key=lambda o: int(o.workload["ranks"]))
    one = simulation_cost(platform, largest.workload, source, [largest.config],
                          memory_limit=memory_limit)
    return batched(one, len(probes) * design.repetitions, driver).then(fit)


def measure_design(design: Design, platform: Platform, executor: Executor, store: Store,
                   campaign_id: int | None = None) -> list[Observation]:
    """Run every probe ``design.repetitions`` times (each repetition stored, source = the
    executor's); one observation per probe that succeeded: its median rate."""
    observations = []
    for probe in design.probes:
        target = design.target(probe, platform)
        label = f"calibration probe {probe.name}"
        runs = run_then_store(executor, target, probe.config, store=store,
                              campaign_id=campaign_id, platform=platform.name, label=label)
        done = measure(target, probe.config, runs, repeat=design.repetitions, label=label,
                       progress=None)
        rates = [run.rate_mbs for run in done.ok_runs if run.rate_mbs]
        if rates:
            observations.append(Observation(
                kernel_workload(design.kernel, target.ranks, probe.args), probe.config,
                statistics.median(rates)))
    return observations
