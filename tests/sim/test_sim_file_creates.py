"""Creating many files at once (file_creates.hpp): each rank's create takes the create latency,
in parallel with the others, unless the metadata servers' throughput binds
(`filesystem.mds_create_per_s` over `filesystem.metadata_servers`)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import leaf, run, small_platform

CREATE_S = 0.005
RANKS = 64


def platform(**filesystem: float) -> Platform:
    tree = copy.deepcopy(small_platform(create_s=CREATE_S).tree)
    for key, value in filesystem.items():
        tree["filesystem"][key] = leaf(value)
    return parse_platform(tree, "test")


def files(mode: str) -> dict[str, Any]:
    grid = [1] if mode == "per-rank" else [RANKS]
    return {"iotwin_workload": 1, "name": "creates", "ranks": RANKS, "ranks_per_node": 1,
            "files": [{"name": "f.%r" if mode == "per-rank" else "f", "api": "mpiio",
                       "mode": mode, "datasets": [{
                           "name": "d", "element_bytes": 1, "transfer": "independent",
                           "decomposition": {"grid": grid, "block": [4096]}}]}]}


def open_s(machine: Platform, mode: str) -> float:
    [result] = run(machine, files(mode))
    return result.phases["open"]


def test_per_rank_creates_run_in_parallel_without_a_server_rate() -> None:
    assert open_s(platform(), "per-rank") == pytest.approx(CREATE_S, rel=1e-12)
    assert open_s(platform(), "shared") == pytest.approx(CREATE_S, rel=1e-12)


@pytest.mark.parametrize("servers", [1, 4])
def test_per_rank_creates_are_bounded_by_the_metadata_servers_rate(servers: int) -> None:
    rate = 1000.0
    machine = platform(mds_create_per_s=rate, metadata_servers=servers)
    assert open_s(machine, "per-rank") == pytest.approx(RANKS / (rate * servers), rel=1e-12)
    # one file: its latency, whatever the servers' rate
    assert open_s(machine, "shared") == pytest.approx(CREATE_S, rel=1e-12)


def test_a_rate_that_does_not_bind_leaves_the_latency() -> None:
    machine = platform(mds_create_per_s=1e6, metadata_servers=1)
    assert open_s(machine, "per-rank") == pytest.approx(CREATE_S, rel=1e-12)
    assert open_s(machine, "per-rank") == open_s(platform(), "per-rank")


def test_a_negative_rate_is_an_error_naming_it() -> None:
    from iotwin.model.sim import simulate
    from iotwin.workloads.workload import validate_workload

    [result] = simulate(platform(mds_create_per_s=-1.0), validate_workload(files("per-rank"), "w"),
                        [{}])
    assert not result.ok and "mds_create_per_s" in result.error
