"""A small synthetic platform where expected times can be computed, workloads on it, and a
simulation that must succeed."""

from __future__ import annotations

from typing import Any

from iotwin.config.validation import DEFAULT_CONFIG, validate_config
from iotwin.model.platforms import Platform, parse_platform
from iotwin.model.sim import SimResult, simulate

MB = 1e6


MiB = 2**20


def leaf(value: Any) -> dict[str, Any]:
    return {"value": value, "assumption": "test platform"}


def small_platform(**overrides: Any) -> Platform:
    """4 OSTs of 100 MB/s on 2 servers; every cost but the ones a test sets is zero."""
    fs = {"type": "lustre", "servers": 2, "targets": 4, "target_mbs": 100, "server_mbs": 1e6,
          "degradation": 0.0, "degradation_floor": 0.0, "rpc_max_bytes": MiB,
          "rpc_overhead_s": 0.0, "lock_conflict_s": 0.0, "expanded_grants": False,
          "create_s": 0.0, "open_s": 0.0, "close_s": 0.0, "metadata_io_s": 0.0}
    net = {"mpi_fabric_mbs": 1e6, "storage_fabric_mbs": 1e6, "collective_step_s": 0.0,
           "memcpy_mbs": 1e6}
    compute = {"cores_per_node": 1, "nic_mbs": 1e6}
    for key, value in overrides.items():
        for section in (fs, net, compute):
            if key in section:
                section[key] = value
    tree = {
        "name": "small",
        "compute": {k: leaf(v) for k, v in compute.items()},
        "network": {k: leaf(v) for k, v in net.items()},
        "filesystem": {k: leaf(v) if k != "type" else v for k, v in fs.items()},
        "site_defaults": {
            "romio_driver": leaf("generic"), "default_cb_nodes": leaf("nodes"),
            "lustre": {"stripe_count": leaf(1), "stripe_size": leaf(MiB),
                       "stripe_offset": leaf(0)},
            "mpiio": {"romio_cb_write": leaf("automatic"), "cb_buffer_size": leaf(4 * MiB),
                      "cb_config_list": leaf("*:1")},
        },
    }
    return parse_platform(tree, "test")


def workload(ranks: int, block: int, *, api: str = "mpiio", transfer: str = "independent",
             datasets: int = 1, ranks_per_node: int = 1) -> dict[str, Any]:
    return {
        "iotwin_workload": 1, "name": "t", "ranks": ranks, "ranks_per_node": ranks_per_node,
        "files": [{"name": "t.h5", "api": api, "datasets": [
            {"name": f"/d{i}", "element_bytes": 1, "transfer": transfer,
             "decomposition": {"grid": [ranks], "block": [block]}} for i in range(datasets)]}],
    }


def run(platform: Platform, wl: dict[str, Any], *configs: dict[str, Any],
        **options: Any) -> list[SimResult]:
    checked = [validate_config(c, "a test's config") for c in configs] or [DEFAULT_CONFIG]
    results = simulate(platform, wl, checked, options=options)
    for r in results:
        assert r.ok, r.error
    return results
