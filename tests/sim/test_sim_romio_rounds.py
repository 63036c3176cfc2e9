"""ROMIO's two-phase rounds outside its Lustre driver (mpiio/romio_rounds.hpp): a round that
holds data writes its whole span, holes included, and reads it first when there are holes; an
aggregator's rounds run from its first byte to its last. Two ranks each write their own block
of a shared file, one 1 MiB record a collective call, with 4 MiB collective buffers."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import MiB, run, small_platform

CALLS = 4
RECORD = MiB
ENABLE = {"mpiio": {"romio_cb_write": "enable"}}


def blocks(ranks_per_node: int) -> dict[str, Any]:
    """Call i: rank r writes record i of its block, at (r * CALLS + i) * RECORD."""
    return {"iotwin_workload": 1, "name": "blocks", "ranks": 2, "ranks_per_node": ranks_per_node,
            "files": [{"name": "blocks.dat", "mode": "shared", "api": "mpiio", "create": True,
                       "datasets": [{"name": "bytes@0", "element_bytes": 1,
                                     "dims": [2, CALLS * RECORD], "chunk_dims": None}],
                       "calls": [{"write": ["bytes@0"], "transfer": "collective",
                                  "selections": [{"grid": [2, 1], "block": [1, RECORD]}],
                                  "repeat": {"times": CALLS, "origin_step": [0, RECORD]}}]}]}


def one_node(**cache: float) -> Platform:
    """small_platform with both ranks on one node (one aggregator), and a page cache."""
    tree = copy.deepcopy(small_platform(cores_per_node=2).tree)
    tree["lustre_client"] = {k: {"value": v, "assumption": "test"} for k, v in cache.items()}
    return parse_platform(tree, "test")


def test_one_aggregator_reads_and_writes_the_stretch_between_the_blocks() -> None:
    # call i spans [i, i + 5) MiB: the round [i, i + 4) holds rank 0's record and a hole, so
    # it is read and written whole; the round [i + 4, i + 5) is rank 1's record alone
    result, = run(one_node(), blocks(ranks_per_node=2), ENABLE)
    calls = result.breakdown["posix"]
    assert result.breakdown["aggregators"] == [1] * CALLS
    assert calls["reads"] == CALLS
    assert calls["read_bytes"] == CALLS * 4 * MiB
    assert calls["writes"] == 2 * CALLS
    assert sum(result.breakdown["bytes_per_target"]) == CALLS * 5 * MiB


def test_an_aggregator_a_rank_writes_only_its_record() -> None:
    # two nodes, an aggregator each: each domain's rounds start and end at its rank's record
    result, = run(small_platform(), blocks(ranks_per_node=1), ENABLE)
    calls = result.breakdown["posix"]
    assert result.breakdown["aggregators"] == [2] * CALLS
    assert calls["reads"] == 0
    assert calls["writes"] == 2 * CALLS
    assert sum(result.breakdown["bytes_per_target"]) == CALLS * 2 * RECORD


def test_the_reread_costs_the_caches_rate_where_the_platform_gives_one() -> None:
    # small_platform's target: 100 MB/s; the reread 16 MiB in all
    from_targets, = run(one_node(), blocks(ranks_per_node=2), ENABLE)
    from_cache, = run(one_node(cached_read_mbs=1e6), blocks(ranks_per_node=2), ENABLE)
    reread_s = CALLS * 4 * MiB / 100e6
    assert from_targets.time_s - from_cache.time_s == pytest.approx(reread_s, rel=0.01)
