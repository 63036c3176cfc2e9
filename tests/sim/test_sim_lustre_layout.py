"""A file's Lustre layout in iosim (sim-models/src/fs/lustre_layout.hpp): a progressive layout's
extents on their components' targets (Data-on-MDT on a metadata target, each OST component on
its pool), the MPI-IO layer seeing the last component, and the ceiling following the targets
the bytes landed on."""

from __future__ import annotations

from typing import Any

import pytest
from iotwin.config.validation import validate_config
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate

KiB, MiB = 2**10, 2**20


def block_file(ranks: int, per_rank: int) -> dict[str, Any]:
    """Each rank one contiguous block of a raw MPI-IO file, written collectively."""
    return {"iotwin_workload": 1, "name": "blocks", "ranks": ranks, "ranks_per_node": 8,
            "files": [{"name": "f.dat", "mode": "shared", "api": "mpiio", "datasets": [
                {"name": "/x", "element_bytes": 1, "transfer": "collective",
                 "decomposition": {"grid": [ranks], "block": [per_rank]}}]}]}


def targets_written(result: Any, first: int, count: int) -> dict[int, int]:
    bytes_per_target = result.breakdown["bytes_per_target"]
    return {t: bytes_per_target[t] for t in range(first, first + count) if bytes_per_target[t]}


def test_frontiers_default_layout_puts_each_extent_on_its_component() -> None:
    frontier = load_platform("frontier")
    fs = frontier.data["filesystem"]
    capacity, flash = fs["targets"], fs["pools"]["performance"]["targets"]
    work = block_file(96, 16 * MiB)  # 1.5 GiB: the first three components
    [default] = simulate(frontier, work, [{}], jobs=1)
    assert default.ok, default.error
    assert sum(targets_written(default, 0, capacity).values()) == 96 * 16 * MiB - 8 * MiB
    assert len(targets_written(default, 0, capacity)) == 1
    assert list(targets_written(default, capacity, flash).values()) == [8 * MiB - 256 * KiB]
    mdts = targets_written(default, capacity + flash, fs["metadata_servers"])
    assert list(mdts.values()) == [256 * KiB]  # Data-on-MDT: the file's first 256 KiB
    # the MPI-IO layer sees the last component (8 stripes): Cray's cb_nodes = stripe count
    assert set(default.breakdown["aggregators"]) == {8}
    # the one capacity OST holding almost every byte sets the OSTs' ceiling
    assert default.ceiling["OSTs"]["mbs"] == pytest.approx(
        96 * 16 * MiB / ((96 * 16 * MiB - 8 * MiB) / fs["target_mbs"]))


def test_a_hand_set_layout_naming_no_pool_lands_in_the_sites_default_pool() -> None:
    frontier = load_platform("frontier")
    fs = frontier.data["filesystem"]
    capacity = fs["targets"]
    [plain] = simulate(frontier, block_file(96, 16 * MiB),
                       [{"lustre": {"stripe_count": 8, "stripe_size": MiB}}], jobs=1)
    assert plain.ok, plain.error
    # OLCF: a layout set by hand without -p goes to the performance tier; no Data-on-MDT
    assert targets_written(plain, 0, capacity) == {}
    assert len(targets_written(plain, capacity, fs["pools"]["performance"]["targets"])) == 8
    assert sum(plain.breakdown["bytes_per_target"]) == 96 * 16 * MiB


def test_a_hand_set_layout_on_the_capacity_pool_lands_there() -> None:
    frontier = load_platform("frontier")
    fs = frontier.data["filesystem"]
    capacity, flash = fs["targets"], fs["pools"]["performance"]["targets"]
    layout = validate_config({"lustre": {"stripe_count": 8, "pool": "capacity"}}, "test")
    [plain] = simulate(frontier, block_file(96, 16 * MiB), [layout], jobs=1)
    assert plain.ok, plain.error
    assert len(targets_written(plain, 0, capacity)) == 8
    assert targets_written(plain, capacity, flash) == {}
    assert plain.ceiling["OSTs"] == {"count": 8, "mbs": pytest.approx(8 * fs["target_mbs"])}


def test_a_platform_without_pools_keeps_its_plain_layout() -> None:
    hopper = load_platform("hopper")
    [result] = simulate(hopper, block_file(32, 4 * MiB), [{}], jobs=1)
    assert len(result.breakdown["bytes_per_target"]) == hopper.data["filesystem"]["targets"]
    assert len(targets_written(result, 0, 156)) == 2  # hopper's default: 2 stripes


def test_a_configs_progressive_layout_replaces_the_sites_and_changes_the_answer() -> None:
    """Data-on-MDT for the first 64 KiB, then the rest 64 wide on the capacity pool: the bytes
    land on those targets, the MPI-IO layer sees 64 stripes, and the rate is not the default's."""
    frontier = load_platform("frontier")
    fs = frontier.data["filesystem"]
    capacity, flash = fs["targets"], fs["pools"]["performance"]["targets"]
    work = block_file(96, 16 * MiB)
    layout = validate_config({"lustre": {"components": [
        {"end": "64KiB", "mdt": True},
        {"end": "eof", "stripe_count": 64, "stripe_size": "1MiB", "pool": "capacity"}]}}, "test")
    default, pfl = simulate(frontier, work, [{}, layout], jobs=1)
    assert pfl.ok, pfl.error
    mdts = targets_written(pfl, capacity + flash, fs["metadata_servers"])
    assert list(mdts.values()) == [64 * KiB]
    assert len(targets_written(pfl, 0, capacity)) == 64
    assert targets_written(pfl, capacity, flash) == {}
    # Cray's cb_nodes is the last component's 64 stripes, and any process of a node may
    # aggregate (Cray's cb_config_list *:*, spread over the 12 nodes)
    assert set(default.breakdown["aggregators"]) == {8}
    assert set(pfl.breakdown["aggregators"]) == {64}
    assert pfl.rate_mbs > 2 * default.rate_mbs  # 64 capacity OSTs, not one, hold the bytes


def test_a_configs_data_on_mdt_is_refused_where_the_platform_has_none() -> None:
    layout = validate_config({"lustre": {"components": [
        {"end": "64KiB", "mdt": True}, {"end": "eof", "stripe_count": 4}]}}, "test")
    [result] = simulate(load_platform("hopper"), block_file(32, 4 * MiB), [layout], jobs=1)
    assert not result.ok
    assert "lustre.components[0].mdt: this platform has no Data-on-MDT" in result.error
