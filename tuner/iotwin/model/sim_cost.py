"""What simulating a workload costs, before any simulation runs: iosim's own estimate of each
config (``options.estimate_only``, sim-models/IOSIM.md "What the simulation costs") turned
into CPU seconds and resident bytes by the constants of data/costs.yaml."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from iotwin.config.types import Config
from iotwin.core.cost import Cost, Driver, constant, refusal
from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform
from iotwin.model.sim import run_iosim, simulator_input

#: the workload field iosim names as the largest part of an estimate: "(workload.files[0])"
_FIELD = re.compile(r"\((workload\.[^()\s]*)\)\)?$")
#: iosim's refusal of a workload too large to read (run/cost_estimate.cpp, CostEstimate::check)
_WORKLOAD_MEMORY = re.compile(
    r"^estimated memory (\S+ \S+) \(most for (.*)\) is beyond the memory limit of ([^;]+);")
#: no step limit while estimating: the estimate is what is asked for
_UNLIMITED_STEPS = 1e300


def simulation_cost(platform: Platform, workload: Mapping[str, Any], source: str,
                    configs: Sequence[Config] = ({},), memory_limit: float | None = None,
                    jobs: int = 2, where: str = "") -> Cost:
    """The cost of one simulation of ``workload`` (read from ``source``, at ``where`` in it:
    ``workloads[0].``) on ``platform``: the costliest of ``configs`` (default: the site's
    defaults), its ``jobs`` workers' memory. A workload whose own reading would go past
    ``memory_limit`` bytes is refused by iosim."""
    options: dict[str, Any] = {"estimate_only": True, "max_steps": _UNLIMITED_STEPS}
    if memory_limit is not None:
        options["memory_limit"] = int(memory_limit)
    entries = run_iosim(simulator_input(platform, workload, configs, options), jobs=1)
    refused = next((str(e.get("error")) for e in entries if not e.get("ok")), None)
    if refused is not None:
        raise UserError(_too_large(refused, f"{source}: {where}", platform.name)
                        or f"{source} on platform {platform.name}: {refused}")
    costliest = max((e["estimate"] for e in entries), key=lambda e: float(e["steps"]))
    return _cost(costliest, f"{source}: {where}", platform.name, min(jobs, len(configs)) or 1)


def _cost(estimate: Mapping[str, Any], within: str, platform: str, workers: int) -> Cost:
    steps, memory, text = (float(estimate["steps"]), float(estimate["memory_bytes"]),
                           str(estimate["text"]))
    seconds = (steps * constant("simulation", "seconds_per_step")
               + constant("simulation", "seconds_per_config"))
    resident = workers * (constant("simulation", "process_bytes")
                          + memory * constant("simulation", "bytes_per_estimated_byte"))
    steps_text, _, memory_text = text.partition(" and ")
    return Cost(seconds, resident,
                Driver(_field(within, steps_text), None, f"{steps_text} on {platform}"),
                Driver(_field(within, memory_text), None, f"{memory_text} on {platform}"))


def _too_large(error: str, within: str, platform: str) -> str | None:
    """iosim's refusal of a workload whose reading alone is beyond the memory limit, as the
    refusal of an estimate names it (iotwin.core.cost.refusal); None for any other error."""
    found = _WORKLOAD_MEMORY.match(error)
    if found is None:
        return None
    memory, most, limit = found.groups()
    return refusal(Driver(_field(within, most), None, f"most for {most} on {platform}"),
                   f"{memory} of memory", limit, "--max-memory")


def _field(within: str, part: str) -> str:
    """``W.yaml: files[0].calls[0].repeat``: the workload field an iosim estimate names as its
    largest part, ``within`` the input it came from (``W.yaml: ``)."""
    found = _FIELD.search(part)
    return within + found.group(1).removeprefix("workload.") if found else within.rstrip(": .")


def batch_seconds(batches: float) -> float:
    """What starting ``batches`` iosim processes costs beyond their configs."""
    return batches * constant("simulation", "seconds_per_batch")


def batched(one: Cost, simulations: float, driver: Driver) -> Cost:
    """``simulations`` of ``one``'s cost, sent to iosim a search's generation at a time
    (``configs_per_batch``), ``driver`` the input that gives their count."""
    batches = math.ceil(simulations / constant("simulation", "configs_per_batch"))
    many = one.times(simulations, driver)
    return replace(many, seconds=many.seconds + batch_seconds(batches))


def fit_cost(platform: Platform, observations: Sequence[Any], source: Driver, *,
             evaluations: float, memory_limit: float | None = None) -> Cost:
    """What fitting ``platform`` to ``observations`` (iotwin.model.calibration's
    ``Observation``: a workload, a config, a rate) costs: ``evaluations`` of the fit's loss,
    each one iosim batch per distinct workload simulating every observation, at the largest
    workload's cost; the observations held in memory meanwhile. ``source`` names the input
    the observations come from."""
    largest = max(observations, key=lambda o: int(o.workload["ranks"]))
    one = simulation_cost(platform, largest.workload, source.name, [largest.config],
                          memory_limit=memory_limit)
    workloads = len({json.dumps(o.workload, sort_keys=True) for o in observations})
    evaluation = one.times(len(observations), source)
    evaluation = replace(evaluation, seconds=evaluation.seconds + batch_seconds(workloads))
    held = (constant("python", "process_bytes")
            + len(observations) * constant("calibration", "bytes_per_case"))
    return evaluation.times(evaluations, source).holding(held, source)
