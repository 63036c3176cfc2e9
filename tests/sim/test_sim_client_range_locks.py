"""The Lustre client's range locks (client_range_locks.hpp): a write call holds its file's range
lock over the pages it touches, so the calls of one node that share a page (IOR's hard write:
47,008-byte records end inside a page, which the next rank's record begins) pass one after
another, each for `locked_write_s`. Worked by hand: 30 ranks on 10 nodes, 3 a node, write 3
adjacent records a segment on each node, every pair sharing a page; the waits of a run are
3 calls x segments x `locked_write_s`."""

from __future__ import annotations

from typing import Any

from iotwin.model.platforms import Platform, parse_platform
from iotwin.model.sim import simulate
from support.ior_records import records, striped
from support.small_platform import leaf, run, small_platform

RANGE_LOCKS = "client range locks (a node's calls sharing pages)"
EXTENT_LOCKS = "extent-lock revocation waits"
LOCKED_WRITE_S = 0.001


def with_range_locks(locked_write_s: float, **fs: Any) -> Platform:
    tree = small_platform(**fs).tree
    tree["lustre_client"] = {"locked_write_s": leaf(locked_write_s)}
    return parse_platform(tree, "test")


def waits(platform: Platform, wl: dict[str, Any]) -> dict[str, float]:
    [result] = run(platform, wl, striped(4))
    return {m: result.time_by_mechanism.get(m, 0.0) for m in (RANGE_LOCKS, EXTENT_LOCKS)}


def test_a_nodes_records_sharing_pages_pass_its_range_lock_one_after_another() -> None:
    segments = 8
    got = waits(with_range_locks(LOCKED_WRITE_S), records(30, 10, segments=segments))
    # each node's three records of a segment are linked (0-1 and 1-2 share a page); the one
    # page-aligned record boundary (byte 128 x 47,008) unlinks a pair on one node only
    assert abs(got[RANGE_LOCKS] - 3 * segments * LOCKED_WRITE_S) < 1e-9
    assert got[EXTENT_LOCKS] == 0.0


def test_one_process_a_node_never_waits_at_its_range_locks() -> None:
    got = waits(with_range_locks(LOCKED_WRITE_S), records(10, 10, segments=8))
    assert got[RANGE_LOCKS] == 0.0


def test_page_aligned_records_share_no_page() -> None:
    got = waits(with_range_locks(LOCKED_WRITE_S), records(30, 10, segments=8, record=16 * 4096))
    assert got[RANGE_LOCKS] == 0.0


def test_the_longer_of_the_two_lock_waits_is_the_writers_wait() -> None:
    hard = records(30, 10, segments=8)
    callback = {"lock_conflict_s": 0.002}
    without = waits(with_range_locks(0.0, **callback), hard)
    small = waits(with_range_locks(1e-7, **callback), hard)
    assert without[EXTENT_LOCKS] > 0 and small == without
    large = waits(with_range_locks(1.0, **callback), hard)
    assert large[EXTENT_LOCKS] == 0.0 and abs(large[RANGE_LOCKS] - 3 * 8 * 1.0) < 1e-9


def test_gpfs_takes_no_range_locks() -> None:
    tree = with_range_locks(LOCKED_WRITE_S).tree
    tree["filesystem"]["type"] = "gpfs"
    tree["filesystem"]["lock_block_bytes"] = leaf(1 << 20)
    got = waits(parse_platform(tree, "test"), records(30, 10, segments=8))
    assert got[RANGE_LOCKS] == 0.0


def test_a_negative_locked_write_is_one_error_naming_it() -> None:
    [result] = simulate(with_range_locks(-1.0), records(30, 10), [{}])
    assert not result.ok
    assert "locked_write_s" in result.error
