"""What a site's MPI-IO and HDF5 do untuned, as platform keys: Cray MPI-IO's aggregators spread
over the job's nodes (aggregator_placement.hpp) and a parallel HDF5 that fills a dataset given
no fill value (hdf5_default_fill.hpp)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import MiB, run, small_platform, workload


def leaf(value: object) -> dict[str, object]:
    return {"value": value, "assumption": "test"}


def lustre_platform(placement: str, cb_config_list: str, **hdf5: Any) -> Platform:
    """8 fast OSTs behind 4 nodes of 4 cores whose NICs (200 MB/s) bound what they send."""
    tree = copy.deepcopy(small_platform(target_mbs=10_000, nic_mbs=200, targets=8).tree)
    tree["compute"]["cores_per_node"] = leaf(4)
    site = tree["site_defaults"]
    site["romio_driver"] = leaf("lustre")
    site["default_cb_nodes"] = leaf("stripe_count")
    site["aggregator_placement"] = leaf(placement)
    site["lustre"]["stripe_count"] = leaf(8)
    site["mpiio"]["romio_cb_write"] = leaf("enable")
    site["mpiio"]["cb_config_list"] = leaf(cb_config_list)
    if hdf5:
        tree["hdf5"] = {key: leaf(value) for key, value in hdf5.items()}
    return parse_platform(tree, "test")


# 16 ranks on 4 nodes, each rank 4 MiB of one shared file
WORKLOAD = workload(16, 4 * MiB, transfer="collective", ranks_per_node=4)


def test_every_process_may_aggregate_so_the_stripe_count_aggregators_share_the_nodes() -> None:
    [one_per_node] = run(lustre_platform("packed", "*:1"), WORKLOAD)
    [spread] = run(lustre_platform("spread", "*:*"), WORKLOAD)
    assert one_per_node.breakdown["aggregators"] == [4]  # ROMIO's "*:1": one per node
    assert spread.breakdown["aggregators"] == [8]  # Cray's "*:*": the stripe count


def test_spread_aggregators_use_every_nodes_link_where_packed_ones_crowd_the_first_nodes() -> None:
    [packed] = run(lustre_platform("packed", "*:*"), WORKLOAD)
    [spread] = run(lustre_platform("spread", "*:*"), WORKLOAD)
    assert packed.breakdown["aggregators"] == spread.breakdown["aggregators"] == [8]
    # packed: the 8 aggregators are the 4 processes of the first 2 nodes, whose NICs carry
    # every byte to storage; spread: 2 on each of the 4 nodes
    assert spread.phases["write"] < packed.phases["write"]
    assert packed.bound_by["ceiling"] == spread.bound_by["ceiling"]


def test_placement_does_not_matter_with_one_aggregator_per_node() -> None:
    [packed] = run(lustre_platform("packed", "*:1"), WORKLOAD)
    [spread] = run(lustre_platform("spread", "*:1"), WORKLOAD)
    assert packed.time_s == pytest.approx(spread.time_s, rel=1e-12)


def test_a_bad_placement_is_refused() -> None:
    with pytest.raises(Exception, match="aggregator_placement"):
        run(lustre_platform("diagonal", "*:*"), WORKLOAD)


def hdf5_workload(**dataset: Any) -> dict[str, Any]:
    found = workload(16, 4 * MiB, api="hdf5", transfer="collective", ranks_per_node=4)
    found["files"][0]["datasets"][0].update(dataset)
    return found


def written(platform: Platform, wl: dict[str, Any]) -> int:
    [result] = run(platform, wl)
    return int(sum(result.breakdown["bytes_per_target"]))


@pytest.mark.parametrize(("dataset", "filled_by_default", "filled_by_site"), [
    ({}, False, True),  # HDF5's default fill value, fill time ifset
    ({"fill_value": "user"}, True, True),  # the application's fill value: filled either way
    ({"fill_time": "never"}, False, False),  # H5Pset_fill_time(NEVER), netCDF's NC_NOFILL
    ({"fill_time": "alloc"}, True, True),
])
def test_a_site_that_fills_default_values_writes_a_contiguous_dataset_twice(
        dataset: dict[str, Any], filled_by_default: bool, filled_by_site: bool) -> None:
    payload = 16 * 4 * MiB
    wl = hdf5_workload(**dataset)
    library = written(lustre_platform("spread", "*:*"), wl)
    site = written(lustre_platform("spread", "*:*", fills_default_value=True), wl)
    assert library - payload == pytest.approx(payload if filled_by_default else 0, abs=64 * 1024)
    assert site - payload == pytest.approx(payload if filled_by_site else 0, abs=64 * 1024)


def test_the_default_fill_is_rank_0s_alone_and_comes_before_the_data() -> None:
    wl = hdf5_workload()
    [plain] = run(lustre_platform("spread", "*:*"), wl, write_paths=True)
    [filled] = run(lustre_platform("spread", "*:*", fills_default_value=True), wl,
                   write_paths=True)
    # rank 0 writes the whole dataset (64 MiB) in 1 MiB fill writes, then the data goes as before
    assert filled.breakdown["posix"]["writes"] - plain.breakdown["posix"]["writes"] == 64
    assert filled.breakdown["write_paths"] == plain.breakdown["write_paths"]
    assert filled.time_s > plain.time_s


def test_the_flag_must_be_a_boolean() -> None:
    with pytest.raises(Exception, match="fills_default_value"):
        run(lustre_platform("spread", "*:*", fills_default_value="yes"), hdf5_workload())
