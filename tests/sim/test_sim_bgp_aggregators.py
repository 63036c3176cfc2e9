"""iosim's Blue Gene/P I/O-node layer: a job's nodes spread over the psets of its partition, and
ROMIO's BG driver choosing aggregators pset by pset (ad_bgl_aggrs.c)."""

from __future__ import annotations

import copy

import pytest
from iotwin.model.platforms import Platform, parse_platform
from iotwin.model.sim import simulate
from support.small_platform import MB, MiB, run, small_platform, workload


def leaf(value: object) -> dict[str, object]:
    return {"value": value, "assumption": "test"}


def bgp_platform(*, min_partition_nodes: int, per_pset: int = 2) -> Platform:
    """4 I/O nodes of 100 MB/s, 4 compute nodes each, GPFS targets fast enough not to matter."""
    tree = copy.deepcopy(small_platform(target_mbs=10_000).tree)
    tree["filesystem"]["type"] = "gpfs"
    tree["filesystem"]["lock_block_bytes"] = leaf(MiB)
    tree["routers"] = {"side": "client", "count": leaf(4), "bandwidth_mbs": leaf(100),
                       "nodes_per_router": leaf(4),
                       "min_partition_nodes": leaf(min_partition_nodes)}
    tree["compute"]["cores_per_node"] = leaf(2)
    tree["site_defaults"]["romio_driver"] = leaf("gpfs")
    tree["site_defaults"]["default_cb_nodes"] = leaf(f"per_router:{per_pset}")
    tree["site_defaults"]["mpiio"]["romio_cb_write"] = leaf("enable")
    return parse_platform(tree, "test")


# 8 ranks, 2 per node: 4 compute nodes.
WORKLOAD = workload(8, 4 * MiB, transfer="collective", ranks_per_node=2)


def test_a_small_job_spread_over_its_partition_gets_one_aggregator_per_pset() -> None:
    # A 16-node partition has 4 psets: one of the job's nodes in each. A pset's 2 ranks are a
    # quarter of a full pset's 8 rank slots, 2 x 2/8 rounds down to 0: at least one.
    [spread] = run(bgp_platform(min_partition_nodes=16), WORKLOAD)
    assert set(spread.breakdown["aggregators"]) == {4}


def test_a_job_on_consecutive_nodes_shares_one_pset_and_its_io_node() -> None:
    [packed] = run(bgp_platform(min_partition_nodes=0), WORKLOAD)
    [spread] = run(bgp_platform(min_partition_nodes=16), WORKLOAD)
    # One pset holds the 8 ranks: 8 x 2/8 = 2 aggregators, all behind one I/O node.
    assert set(packed.breakdown["aggregators"]) == {2}
    payload = 8 * 4 * MiB
    assert packed.phases["write"] == pytest.approx(payload / (100 * MB), rel=0.02)
    assert spread.phases["write"] == pytest.approx(payload / (4 * 100 * MB), rel=0.02)


def test_bgl_nodes_pset_sets_the_aggregators_per_pset_and_cb_nodes_does_not() -> None:
    plat = bgp_platform(min_partition_nodes=0)
    [more, ignored] = run(plat, WORKLOAD, {"mpiio": {"hints": {"bgl_nodes_pset": "4"}}},
                          {"mpiio": {"cb_nodes": 1}})
    assert set(more.breakdown["aggregators"]) == {4}
    assert set(ignored.breakdown["aggregators"]) == {2}


def test_cpu0_ranks_aggregate_before_a_node_second_rank() -> None:
    # bgl_nodes_pset 4 in one pset of 8 ranks on 4 nodes: the 4 CPU-0 ranks, one per node, so
    # each aggregator's file domain (a quarter of the file: its node's two ranks) is local.
    # Ranks 0-3 (two nodes) would shuffle half of the data.
    plat = bgp_platform(min_partition_nodes=0)
    [r] = run(plat, WORKLOAD, {"mpiio": {"hints": {"bgl_nodes_pset": "4"}}})
    assert set(r.breakdown["aggregators"]) == {4}
    assert r.breakdown["shuffle_bytes"] == 0


def test_a_bad_bgl_nodes_pset_is_an_error_naming_it() -> None:
    [r] = simulate(bgp_platform(min_partition_nodes=0), WORKLOAD,
                   [{"mpiio": {"hints": {"bgl_nodes_pset": "many"}}}])
    assert not r.ok
    assert "bgl_nodes_pset" in (r.error or "")
