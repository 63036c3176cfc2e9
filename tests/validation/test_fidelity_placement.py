"""Ranks on the platform's nodes as mpiexec puts them: 4 ranks on the 1-node, 2-core local
machine share its one node (oversubscribed), for every caller of the simulator."""

from __future__ import annotations

from typing import Any

import pytest
from iotwin.model.calibration import Observation, predict
from iotwin.model.platforms import load_platform
from iotwin.model.sim import placed, run_iosim, simulate, simulator_input
from iotwin.workloads.workload import kernel_workload

BUFFERED = {"mpiio": {"romio_cb_write": "enable"}}  # cb_config_list *:1: one aggregator a node


@pytest.fixture(scope="module")
def vpic() -> dict[str, Any]:
    return kernel_workload("vpic-io", 4, ["--particles", "65536"])


def test_ranks_beyond_the_platforms_cores_share_its_nodes(vpic: dict[str, Any]) -> None:
    local = load_platform("local")
    assert placed(local, vpic)["ranks_per_node"] == 4
    [raw] = run_iosim(simulator_input(local, vpic, [{}]), jobs=1)
    assert raw["nodes"] == 1


def test_a_workload_that_fits_or_states_its_placement_is_left_as_it_is(
        vpic: dict[str, Any]) -> None:
    assert "ranks_per_node" not in placed(load_platform("hopper"), vpic)
    assert placed(load_platform("hopper"), {**vpic, "ranks_per_node": 2})["ranks_per_node"] == 2


def test_a_stated_placement_needing_more_nodes_than_the_platform_has_is_spread(
        vpic: dict[str, Any]) -> None:
    assert placed(load_platform("local"), {**vpic, "ranks_per_node": 2})["ranks_per_node"] == 4


def test_one_node_means_one_aggregator_under_the_default_cb_config_list(
        vpic: dict[str, Any]) -> None:
    local = load_platform("local")
    [one_node] = simulate(local, vpic, [BUFFERED])
    [two_nodes] = simulate(local.with_values({"compute.nodes": 2}), vpic, [BUFFERED])
    assert set(one_node.breakdown["aggregators"]) == {1}
    assert set(two_nodes.breakdown["aggregators"]) == {2}


def test_calibration_predicts_the_oversubscribed_placement(vpic: dict[str, Any]) -> None:
    local = load_platform("local")
    [predicted] = predict(local, [Observation(vpic, BUFFERED, 1.0)], jobs=1)
    [one_node] = simulate(local, {**vpic, "ranks_per_node": 4}, [BUFFERED], jobs=1)
    [two_nodes] = simulate(local.with_values({"compute.nodes": 2}), vpic, [BUFFERED], jobs=1)
    assert predicted == pytest.approx(one_node.rate_mbs)
    assert predicted != pytest.approx(two_nodes.rate_mbs)
