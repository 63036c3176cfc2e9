"""A workload from MACSio-like parameters: dumps, growth, visualisation states (IV-B).

The paper's equations where the description lacks a quantity:
Eq. 1 turns a checkpoint file size into a part size per rank and variable; Eq. 2-4 turn the
total size of the visualisation file and the growth of the data set into the size of each
visualisation state. Checkpoints and states are placed on the run's timeline and become file
sessions in time order, the gaps between them `compute_before_s`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.workloads.replication.sessions import Session, dataset, session, workload

MB = 10**6  # the paper prints decimal megabytes


def part_bytes_from_file_size(file_bytes: float, ranks: int, variables: int,
                              eq: Mapping[str, float]) -> float:
    """Eq. 1 solved for PS: F = Pr(PS(a Vars + b) + g Vars + d) + p Vars + e."""
    per_rank = (file_bytes - eq["psi"] * variables - eq["eta"]) / ranks
    return (per_rank - eq["gamma"] * variables - eq["delta"]) / (eq["alpha"] * variables
                                                                 + eq["beta"])


def initial_state_bytes(total: float, factors: list[float]) -> float:
    """Eq. 4: Vis_0 = VisTotal / (1 + F_0(1 + F_1(... (1 + F_n))))."""
    denominator = 1.0
    for factor in reversed(factors):
        denominator = 1.0 + factor * denominator
    return total / denominator


def checkpoint_sizes(spec: Mapping[str, Any]) -> list[float]:
    """Bytes of each checkpoint: constant, or piecewise linear through growth knots (MB)."""
    count = int(spec["count"])
    if "size_mb" in spec:
        return [float(spec["size_mb"]) * MB] * count
    knots = sorted((int(i), float(mb)) for i, mb in spec["growth_knots"])
    sizes = []
    for k in range(count):
        (i0, s0), (i1, s1) = next(((a, b) for a, b in pairwise(knots)
                                   if a[0] <= k <= b[0]), (knots[-2], knots[-1]))
        sizes.append((s0 + (s1 - s0) * (k - i0) / max(i1 - i0, 1)) * MB)
    return sizes


@dataclass(frozen=True)
class Event:
    time_s: float
    role: str
    index: int
    bytes: float


def _timeline(sim: Mapping[str, Any]) -> list[Event]:
    runtime = float(sim["runtime_min"]) * 60
    ckpt = sim["checkpoints"]
    sizes = checkpoint_sizes(ckpt)
    fractions = ckpt.get("at_fraction") or [(k + 1) / len(sizes) for k in range(len(sizes))]
    if len(fractions) != len(sizes):
        raise UserError(f"at_fraction has {len(fractions)} entries for {len(sizes)} checkpoints")
    events = [Event(f * runtime, "checkpoint", k, s)
              for k, (f, s) in enumerate(zip(fractions, sizes, strict=True))]
    states = int(sim["visualisation"]["states"])
    vis_times = [runtime * j / max(states - 1, 1) for j in range(states)]
    # the data set a state shows is the one of the last checkpoint before it (Eq. 3)
    shown = [sizes[max(0, sum(1 for e in events if e.time_s < t) - 1)] for t in vis_times]
    factors = [b / a for a, b in pairwise(shown)]
    vis = initial_state_bytes(float(sim["visualisation"]["total_mb"]) * MB, factors)
    for j, t in enumerate(vis_times):
        events.append(Event(t, "visualisation", j, vis))
        if j < len(factors):
            vis *= factors[j]
    return sorted(events, key=lambda e: (e.time_s, e.role != "visualisation", e.index))


def _datasets(prefix: str, total_bytes: float, ranks: int, variables: int,
              params: Mapping[str, Any]) -> list[dict[str, Any]]:
    eb, parts = int(params["element_bytes"]), int(params["parts_per_rank"])
    part = part_bytes_from_file_size(total_bytes, ranks, variables, params["equation1"]) / parts
    part_elements = max(1, round(part / eb))
    return [dataset(f"{prefix}var_{v}", eb, [part_elements * parts] * ranks,
                    transfer="collective", access_elements=part_elements)
            for v in range(variables)]


def _session(name: str, event: Event, gap: float, last_state: int, ranks: int,
             params: Mapping[str, Any]) -> Session:
    if event.role == "checkpoint":
        return session(f"{name}.ckpt.{event.index:03d}.h5", "checkpoint",
                       _datasets("/", event.bytes, ranks, int(params["variables"]), params),
                       mode=params["mode"], compute_before_s=gap)
    return session(f"{name}.vis.h5", "visualisation",
                   _datasets(f"/state_{event.index:04d}/", event.bytes, ranks,
                             int(params["vis_variables"]), params),
                   mode=params["mode"], create=event.index == 0, compute_before_s=gap,
                   flushes=1, keep_open=event.index < last_state)


def simulation_workload(description: Path, name: str) -> dict[str, Any]:
    """Simulation ``name`` of a description such as experiments/macsio/simulations.yaml."""
    document = read_yaml(description, "MACSio description")
    try:
        sim = document["simulations"][name]
    except (KeyError, TypeError) as error:
        simulations = document.get("simulations") if isinstance(document, dict) else None
        names = ", ".join(simulations or []) if isinstance(simulations, dict) else ""
        raise UserError(f"{description}: no simulation {name!r} (it has: {names})") from error
    params = {**document.get("defaults", {}), **sim}
    ranks = int(sim["ranks"])
    events = _timeline(sim)
    last_state = max(e.index for e in events if e.role == "visualisation")
    files, clock = [], 0.0
    for event in events:
        files.append(_session(name, event, event.time_s - clock, last_state, ranks, params))
        clock = event.time_s
    return workload(name, f"iotwin workload macsio {description.name} {name}", ranks, files)
