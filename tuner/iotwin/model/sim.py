"""Python side of the simulator: one batch of configs through ``iosim`` (sim-models/)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from iotwin.config import resolution
from iotwin.config.types import Config
from iotwin.model import iosim_process, sim_cluster, sim_memo
from iotwin.model.platforms import Platform
from iotwin.model.site_rules import platform_space_context


@dataclass
class SimResult:
    ok: bool
    time_s: float | None
    rate_mbs: float | None
    phases: dict[str, float] = field(default_factory=dict)
    breakdown: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    # the run's ceiling (the least capacity of what its data crossed; None: nothing bounds
    # it), the best any layout reaches from its placement, what binds the run (the mechanism
    # that took most of its time) and the ceiling (IOSIM.md "Ceiling")
    ceiling_mbs: float | None = None
    best_ceiling_mbs: float | None = None
    bound_by: dict[str, str] = field(default_factory=dict)
    ceiling: dict[str, dict[str, float]] = field(default_factory=dict)
    time_by_mechanism: dict[str, float] = field(default_factory=dict)

    @property
    def ceiling_fraction(self) -> float | None:
        """The rate as a fraction of its ceiling."""
        if self.rate_mbs is None or not self.ceiling_mbs:
            return None
        return self.rate_mbs / self.ceiling_mbs


#: the layout keys a hand-set layout replaces a directory's default with
_LAYOUT_KEYS = ("stripe_count", "stripe_size", "components")


def _file_settings(config: Config, file: Mapping[str, Any],
                   directories: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """What the config sets for one workload file and each of its datasets; a file the config
    gives no layout gets its directory's default layout (``site_defaults.directories``: a new
    file inherits its parent directory's, as ``lfs setstripe DIR`` sets it)."""
    name = str(file["name"]).replace("%r", "0").replace("%g", "0")
    settings = resolution.resolve(config, name)
    parent = PurePosixPath(name).parent.name
    if parent in directories and not any(k in settings["lustre"] for k in _LAYOUT_KEYS):
        settings["lustre"].update(directories[parent])
    out: dict[str, Any] = {block: values for block, values in settings.items()
                           if block != "dataset"}
    out["datasets"] = [resolution.resolve(config, name, d["name"])["dataset"]
                       for d in file["datasets"]]
    return out


def placed(platform: Platform, workload: Mapping[str, Any]) -> dict[str, Any]:
    """The workload's ranks on the platform's nodes as mpiexec puts them: the placement the
    workload states, else a node's cores each; when that needs more nodes than the platform
    has, spread over all of its nodes (oversubscribed, as 4 ranks run on this 1-node, 2-core
    machine)."""
    compute = platform.data["compute"]
    if "nodes" not in compute:  # no node count: as many nodes as the placement needs
        return dict(workload)
    nodes, ranks = int(compute["nodes"]), int(workload["ranks"])
    per_node = int(workload.get("ranks_per_node") or compute["cores_per_node"])
    if math.ceil(ranks / per_node) <= nodes:
        return dict(workload)
    return {**workload, "ranks_per_node": math.ceil(ranks / nodes)}


def simulator_input(platform: Platform, workload: Mapping[str, Any],
                    configs: Sequence[Config],
                    options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """iosim's input (IOSIM.md); the best ceiling's stripes are the most the site allows."""
    limit = platform_space_context(platform, int(workload["ranks"])).max_stripe_count
    data = platform.data
    directories = data["site_defaults"].get("directories", {})
    if directories:
        data = {**data, "site_defaults": {k: v for k, v in data["site_defaults"].items()
                                          if k != "directories"}}
    return {
        "platform": data,
        "workload": placed(platform, workload),
        "configs": [{"files": [_file_settings(c, f, directories) for f in workload["files"]]}
                    for c in configs],
        "options": {**({"best_stripe_count": limit} if limit else {}), **(options or {})},
    }


def with_noise(result: SimResult, sigma: float, seed: int) -> SimResult:
    if not result.ok or result.time_s is None or sigma <= 0:
        return result
    factor = math.exp(random.Random(seed).gauss(0.0, sigma))
    result.phases = {k: v * factor for k, v in result.phases.items()}
    result.time_s *= factor
    if result.rate_mbs is not None:
        result.rate_mbs /= factor
    return result


def result_of(entry: Mapping[str, Any]) -> SimResult:
    if not entry.get("ok"):
        return SimResult(False, None, None, error=str(entry.get("error", "unknown error")))
    return SimResult(True, float(entry["time_s"]), float(entry["rate_mbs"]),
                     {k: float(v) for k, v in entry["phases"].items()}, dict(entry["breakdown"]),
                     ceiling_mbs=entry["ceiling_mbs"], best_ceiling_mbs=entry["best_ceiling_mbs"],
                     bound_by=dict(entry["bound_by"]), ceiling=dict(entry["ceiling"]),
                     time_by_mechanism=dict(entry["time_by_mechanism"]))


def run_iosim(payload: Mapping[str, Any], jobs: int = 2) -> list[dict[str, Any]]:
    """Raw iosim results for a prepared input (see sim-models/IOSIM.md): on the Dask cluster
    that ``IOTWIN_SIM_CLUSTER`` names (iotwin.model.sim_cluster), else by this process's
    long-lived iosim (iotwin.model.iosim_process.served); within ``sim_memo.memoised``, only
    the configs its memo lacks."""
    memo = sim_memo.active()
    if memo is not None:
        return memo.answers(payload, lambda missing: _simulated(missing, jobs))
    return _simulated(payload, jobs)


def _simulated(payload: Mapping[str, Any], jobs: int) -> list[dict[str, Any]]:
    address = sim_cluster.cluster_address()
    if address:
        return sim_cluster.run_on_cluster(payload, address)
    return iosim_process.served(payload, jobs)


def simulate(platform: Platform, workload: Mapping[str, Any], configs: Sequence[Config], *,
             noise_seed: int | None = None, jobs: int = 2,
             options: Mapping[str, Any] | None = None) -> list[SimResult]:
    """Predicted time and rate of `workload` under each config, in order. A truth platform
    (Platform.truth) adds its run-to-run noise, seeded by `noise_seed` and the config's index."""
    if not configs:
        return []
    raw = run_iosim(simulator_input(platform, workload, configs, options), jobs)
    results = [result_of(entry) for entry in raw]
    if platform.noise > 0:
        base = 0 if noise_seed is None else noise_seed
        results = [with_noise(r, platform.noise, base * 1_000_003 + i)
                   for i, r in enumerate(results)]
    return results
