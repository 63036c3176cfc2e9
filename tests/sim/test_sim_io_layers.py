"""iosim mechanisms between the writer and the disk: the I/O-node (router) layer, data
sieving of noncontiguous independent writes, and the file open / create / close costs.

The small platform of test_sim_mechanisms: 4 OSTs of 100 MB/s, every other cost zero unless set.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import MB, MiB, leaf, run, small_platform, workload

KiB = 2**10


def behind_routers(nodes_per_router: int, bandwidth_mbs: float) -> Platform:
    """The small platform with I/O nodes on the client side (BG/P style): each serves
    ``nodes_per_router`` compute nodes and forwards at most ``bandwidth_mbs``."""
    tree = copy.deepcopy(small_platform().tree)
    tree["routers"] = {"side": "client", "count": leaf(4), "bandwidth_mbs": leaf(bandwidth_mbs),
                       "nodes_per_router": leaf(nodes_per_router)}
    return parse_platform(tree, "test")


def strided(ranks: int, rows: int, piece: int) -> dict[str, Any]:
    """Each rank writes ``rows`` pieces of ``piece`` bytes, interleaved with the others'."""
    wl = workload(ranks, piece)
    wl["files"][0]["datasets"][0]["decomposition"] = {"grid": [1, ranks], "block": [rows, piece]}
    return wl


@pytest.mark.parametrize("nodes_per_router", [1, 2, 4])
def test_io_nodes_cap_what_their_compute_nodes_write(nodes_per_router: int) -> None:
    # 4 nodes write 1 MiB each over 4 OSTs (400 MB/s); their I/O nodes forward 50 MB/s each
    wl, config = workload(4, MiB), {"lustre": {"stripe_count": 4}}
    unrouted, = run(small_platform(), wl, config)
    routed, = run(behind_routers(nodes_per_router, 50.0), wl, config)
    io_nodes_used = 4 // nodes_per_router
    assert unrouted.time_s == pytest.approx(4 * MiB / (400 * MB), rel=0.01)
    assert routed.time_s == pytest.approx(4 * MiB / (io_nodes_used * 50 * MB), rel=0.01)


def test_data_sieving_writes_the_span_of_a_ranks_pieces() -> None:
    # 2 ranks, 4 interleaved pieces of 256 KiB each: a rank's span is 7 pieces
    wl = strided(2, rows=4, piece=256 * KiB)
    sieved, direct = run(small_platform(), wl, {"mpiio": {"romio_ds_write": "enable"}},
                         {"mpiio": {"romio_ds_write": "disable"}})
    assert direct.breakdown["bytes_per_target"][0] == 2 * MiB
    assert sieved.breakdown["bytes_per_target"][0] == 2 * 7 * 256 * KiB
    assert sieved.time_s > direct.time_s  # large pieces: sieving only adds the read and the holes


def test_data_sieving_wins_when_pieces_are_small_and_requests_cost() -> None:
    # 64 pieces of 1 KiB per rank at 1 ms a request: one sieved request beats 64
    wl = strided(2, rows=64, piece=KiB)
    platform = small_platform(rpc_overhead_s=1e-3)
    sieved, direct = run(platform, wl, {"mpiio": {"romio_ds_write": "enable"}},
                         {"mpiio": {"romio_ds_write": "disable"}})
    # sieved: one window per rank, read then written back (2 RPCs each)
    assert (sieved.breakdown["rpcs"], direct.breakdown["rpcs"]) == (4, 128)
    assert direct.time_s > 128 * 1e-3
    assert sieved.time_s < direct.time_s / 10


def test_open_create_and_close_costs_add_to_their_phases() -> None:
    wl = workload(4, MiB, api="hdf5")
    free, = run(small_platform(), wl)
    costed, = run(small_platform(open_s=0.05, close_s=0.02, create_s=0.01), wl)
    assert costed.phases["open"] - free.phases["open"] == pytest.approx(0.05 + 0.01)
    assert costed.phases["close"] - free.phases["close"] == pytest.approx(0.02)
    assert costed.phases["write"] == pytest.approx(free.phases["write"])


@pytest.mark.parametrize("ranks_per_node", [1, 4])
def test_collective_metadata_is_written_by_one_collective_write_call(ranks_per_node: int) -> None:
    # HDF5 1.10 writes the dirty metadata at close with one MPI_File_write_at_all: its
    # collective steps (4 calls of ceil(log2 4) = 2 steps) wait for time slices when the
    # ranks outnumber the cores, like any collective write call; the close's own 2 do not
    wl = workload(4, MiB, api="hdf5", transfer="collective", ranks_per_node=ranks_per_node)
    config = {"hdf5": {"coll_metadata_write": True}}

    def close_s(step: float) -> float:
        result, = run(small_platform(collective_step_s=step), wl, config)
        return result.phases["close"]

    oversubscription = ranks_per_node  # one core per node
    assert close_s(0.01) - close_s(0.0) == pytest.approx(2 * 0.01 + 4 * 2 * 0.01 * oversubscription)


@pytest.mark.parametrize(("hints", "aggregators"), [({}, 2), ({"romio_lustre_co_ratio": "2"}, 4)])
def test_romios_lustre_driver_takes_its_aggregators_from_the_stripe_count(
        hints: dict[str, str], aggregators: int) -> None:
    # ad_lustre: cb_nodes defaults to the stripe count times co_ratio, not one per node
    tree = copy.deepcopy(small_platform().tree)
    tree["site_defaults"]["romio_driver"] = leaf("lustre")
    platform = parse_platform(tree, "test")
    wl = workload(8, 4 * MiB, transfer="collective")  # 8 nodes
    config = {"lustre": {"stripe_count": 2}, "mpiio": {"romio_cb_write": "enable", "hints": hints}}
    result, = run(platform, wl, config)
    assert result.breakdown["aggregators"] == [aggregators]
