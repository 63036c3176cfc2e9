"""The scale audit: every platform model from 64 ranks to its full size, and what it costs.

For each platform of ``validation/scale/audit.yaml``, each kernel (weak scaling: the same data
per rank at every scale) under the site defaults and one tuned config, at each scale up to the
machine's full size: the predicted rate, the time per phase, the mechanism that binds
(:func:`binding_mechanism`), and the simulation's own cost: wall seconds and the peak memory
of the iosim process tree (``wait4``'s rusage). A knee, where the binding mechanism changes
between two scales, is named by the mechanisms on either side.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from iotwin.config.types import Config
from iotwin.config.validation import DEFAULT_CONFIG, validate_config
from iotwin.core import paths
from iotwin.core.cost import Cost, Driver, Limits, duration_text
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import read_yaml
from iotwin.model import iosim_process, sim
from iotwin.model.platforms import Platform, load_platform
from iotwin.model.sim_cost import simulation_cost
from iotwin.workloads.workload import kernel_workload

CONFIGS = ("default", "tuned")


@dataclass
class AuditPoint:
    platform: str
    kernel: str
    config: str
    ranks: int
    ok: bool
    rate_mbs: float | None
    phases: dict[str, float]
    binding: str
    sim_seconds: float
    peak_mib: float
    error: str = ""


def scale_dir() -> Path:
    return paths.repo_root() / "validation" / "scale"


def full_ranks(platform: Platform, entry: Mapping[str, Any]) -> int:
    compute = platform.data["compute"]
    return int(entry.get("full_ranks") or compute["nodes"] * compute["cores_per_node"])


def gcrm_arguments(ranks: int, levels: int) -> list[str]:
    subdomain = max(1, math.ceil(math.log(max(ranks, 1) / 10, 4)))
    return ["--resolution", str(subdomain + 3), "--subdomain-resolution", str(subdomain),
            "--levels", str(levels)]


def audit_workload(spec: Mapping[str, Any], kernel: str, ranks: int, per_node: int
                   ) -> dict[str, Any]:
    arguments = spec["kernels"][kernel]
    if arguments == "subdomains":
        arguments = gcrm_arguments(ranks, int(spec["gcrm_levels"]))
    work = kernel_workload(kernel, ranks, list(arguments))
    return {**work, "ranks_per_node": per_node}


def binding_mechanism(result: sim.SimResult) -> str:
    """Which mechanism limits the run: the one iosim charged most of its time to (IOSIM.md
    "Ceiling and binding mechanism")."""
    return result.bound_by.get("run", "")


def measured_simulation(platform: Platform, work: Mapping[str, Any], config: Config,
                        max_seconds: float) -> tuple[sim.SimResult | None, float, float, str]:
    """One simulation in its own iosim process: result, wall seconds, peak MiB, error."""
    payload = json.dumps(sim.simulator_input(platform, dict(work), [config]))
    with tempfile.TemporaryFile("w+") as given, tempfile.TemporaryFile("w+") as out:
        given.write(payload)
        given.seek(0)
        start = time.perf_counter()
        process = subprocess.Popen(iosim_process.argv(1),
                                   stdin=given, stdout=out, stderr=subprocess.DEVNULL)
        status, usage = _wait(process, max_seconds)
        seconds = time.perf_counter() - start
        peak_mib = usage.ru_maxrss / 1024 if usage else 0.0
        if status is None:
            return None, seconds, peak_mib, f"took longer than {max_seconds:g} s: stopped"
        out.seek(0)
        if status != 0:
            return None, seconds, peak_mib, f"iosim exited with status {status}"
        [entry] = iosim_process.results(out.read())
    if not entry.get("ok"):
        return None, seconds, peak_mib, str(entry.get("error"))
    return sim.result_of(entry), seconds, peak_mib, ""


def _wait(process: subprocess.Popen, max_seconds: float) -> tuple[int | None, Any]:
    """The exit status and rusage of the process and its waited-for children (os.wait4);
    status None when it was stopped at ``max_seconds``."""
    deadline = time.monotonic() + max_seconds
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage
        if time.monotonic() > deadline:
            process.kill()
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = -9
            return None, usage
        time.sleep(0.02)


def run_audit(spec_path: Path | None = None, *, platforms: Sequence[str] | None = None,
              progress: Callable[[str], None] | None = None,
              limits: Limits | None = None) -> list[AuditPoint]:
    """Every point of the audit spec (default validation/scale/audit.yaml), or of the named
    ``platforms``; with ``limits``, estimated first and refused beyond them (UserError naming
    the spec and the point that drives the estimate), the estimate said to ``progress``."""
    say = progress or (lambda _: None)
    source = spec_path or scale_dir() / "audit.yaml"
    spec = read_yaml(source, "scale audit spec")
    tuned = validate_config(spec["tuned"], "audit.yaml: tuned")
    jobs = []
    for name, entry in spec["platforms"].items():
        if platforms and name not in platforms:
            continue
        platform = load_platform(name)
        per_node = int(platform.data["compute"]["cores_per_node"])
        full = full_ranks(platform, entry or {})
        scales = sorted({s for s in spec["scales"] if s < full} | {full})
        for kernel, ranks in itertools.product(spec["kernels"], scales):
            jobs.append((platform, name, kernel, audit_workload(spec, kernel, ranks, per_node)))
    max_seconds = float(spec["max_seconds"])
    if limits is not None:
        say(audit_cost(jobs, [DEFAULT_CONFIG, tuned], max_seconds, str(source), limits).text())
    points = []
    for platform, name, kernel, work in jobs:
        for label, config in zip(CONFIGS, (DEFAULT_CONFIG, tuned), strict=True):
            say(f"{name} {kernel} {label} {work['ranks']} ranks")
            points.append(_point(platform, name, kernel, label, work, config, max_seconds))
    return points


def audit_cost(jobs: Sequence[tuple[Platform, str, str, Mapping[str, Any]]],
               configs: Sequence[Config], max_seconds: float, source: str,
               limits: Limits) -> Cost:
    """The audit's simulations one after another, each estimated by iosim and cut at
    ``max_seconds`` (the audit stops a simulation there), the largest memory held."""
    total: Cost | None = None
    for platform, name, kernel, work in jobs:
        one = simulation_cost(platform, work, f"{source}: {name} {kernel} {work['ranks']} ranks",
                              configs, memory_limit=limits.memory_bytes, jobs=1)
        one = replace(one, seconds=min(one.seconds, max_seconds)).times(
            len(configs), Driver(source, f"{len(jobs)} points"))
        total = one if total is None else total.then(one)
    if total is None:
        raise UserError(f"{source}: no platform to audit")
    return limits.check(replace(total, time_driver=Driver(
        f"{source}: platforms", f"{len(jobs) * len(configs)} simulations",
        f"each at most {duration_text(max_seconds)}, the audit's max_seconds")))


def _point(platform: Platform, name: str, kernel: str, label: str, work: Mapping[str, Any],
           config: Config, max_seconds: float) -> AuditPoint:
    result, seconds, peak, error = measured_simulation(platform, work, config, max_seconds)
    ranks = int(work["ranks"])
    if result is None:
        return AuditPoint(name, kernel, label, ranks, False, None, {}, "", seconds, peak, error)
    return AuditPoint(name, kernel, label, ranks, True, result.rate_mbs, result.phases,
                      binding_mechanism(result), seconds, peak)


def mechanism(binding: str) -> str:
    """The binding mechanism's kind, without the ceiling it was measured against."""
    return binding.split(" (")[0]


def knees(points: Sequence[AuditPoint]) -> list[str]:
    """Where the binding mechanism changes kind between consecutive scales of one series."""
    found = []
    series: dict[tuple[str, str, str], list[AuditPoint]] = {}
    for p in points:
        series.setdefault((p.platform, p.kernel, p.config), []).append(p)
    for (platform, kernel, config), mine in series.items():
        mine = sorted((p for p in mine if p.ok), key=lambda p: p.ranks)
        for before, after in itertools.pairwise(mine):
            if mechanism(before.binding) != mechanism(after.binding):
                change = (after.rate_mbs or 0) / (before.rate_mbs or 1)
                found.append(f"{platform} {kernel} {config}: {before.ranks} -> {after.ranks} "
                             f"ranks, rate x{change:.2f}: {before.binding} -> {after.binding}")
    return found


def write_points(points: Sequence[AuditPoint], path: Path) -> None:
    path.write_text(json.dumps([asdict(p) for p in points], indent=1) + "\n")


def read_points(path: Path) -> list[AuditPoint]:
    """The points ``write_points`` wrote; none if the file does not exist."""
    if not path.exists():
        return []
    return [AuditPoint(**point) for point in json.loads(path.read_text())]


def merged(kept: Sequence[AuditPoint], rerun: Sequence[AuditPoint]) -> list[AuditPoint]:
    """``kept`` with every platform that ``rerun`` covers replaced by ``rerun``'s points: an
    audit of some platforms updates the record of the others without running them again."""
    replaced = {p.platform for p in rerun}
    return [p for p in kept if p.platform not in replaced] + list(rerun)
