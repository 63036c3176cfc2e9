"""Small records of many ranks interleaved in one shared file (IOR's hard write: each rank's
47,008-byte record after the previous rank's): the client merges a node's adjacent records into
RPCs and the target its adjacent requests (request_merging.hpp), and the extent locks the nodes
share cost their writers waits, per object (extent_locks.hpp)."""

from __future__ import annotations

from support.ior_records import records, striped
from support.small_platform import run, small_platform

WAITS = "extent-lock revocation waits"


def test_a_nodes_adjacent_records_leave_as_merged_rpcs() -> None:
    # 16 ranks on one node write 16 adjacent records (752,128 bytes) into one 1 MiB stripe:
    # one RPC, not 16; on 16 nodes each record is its own node's RPC.
    [one_node] = run(small_platform(), records(16, 1), striped(1))
    [many_nodes] = run(small_platform(), records(16, 16), striped(1))
    assert one_node.breakdown["posix"]["writes"] == 16 == many_nodes.breakdown["posix"]["writes"]
    assert one_node.breakdown["rpcs"] == 1
    assert many_nodes.breakdown["rpcs"] == 16


def test_records_crossing_a_stripe_boundary_split_at_it_and_at_the_rpc_size() -> None:
    # 96 records on one node, 4,512,768 bytes over 1 MiB stripes on 4 targets: four whole
    # stripes, then 0.3 MiB that continue the first target's object: its run of 1.3 MiB is two
    # RPCs of at most 1 MiB, the other objects' one each.
    [result] = run(small_platform(), records(96, 1), striped(4))
    assert result.breakdown["rpcs"] == 2 + 3


def test_the_target_merges_adjacent_requests_of_different_nodes() -> None:
    # 16 nodes' records in one stripe: 16 client RPCs, but adjacent in the object: the target
    # serves them as one request, so its request service is less than one per RPC.
    rpc_s = 0.01
    [result] = run(small_platform(rpc_overhead_s=rpc_s), records(16, 16), striped(1))
    assert result.breakdown["rpcs"] == 16
    assert result.time_by_mechanism.get("OSTs (request service)", 0.0) < 16 * rpc_s


def test_a_single_node_writing_interleaved_records_revokes_nothing() -> None:
    [result] = run(small_platform(lock_conflict_s=0.01), records(32, 1, segments=4), striped(4))
    assert result.breakdown["lock_conflicts"] == 0
    assert WAITS not in result.time_by_mechanism


def test_lock_waits_spread_over_many_objects_take_less_than_on_one() -> None:
    # 16 nodes, one record each, in 64 KiB stripes: the lock units the nodes share are spread
    # over 4 objects, whose revocations go on at once, or all on one object, one after another.
    platform = small_platform(lock_conflict_s=0.01)
    one, four = run(platform, records(16, 16), striped(1, 64 * 1024), striped(4, 64 * 1024))
    assert one.breakdown["lock_conflicts"] == four.breakdown["lock_conflicts"] > 0
    assert four.time_by_mechanism[WAITS] < one.time_by_mechanism[WAITS]
    assert four.time_s < one.time_s


def test_lock_waits_are_charged_to_the_writers_and_add_up() -> None:
    [result] = run(small_platform(lock_conflict_s=0.01), records(16, 16, segments=8), striped(4))
    assert result.time_by_mechanism[WAITS] > 0
    assert abs(sum(result.time_by_mechanism.values()) - result.time_s) <= 1e-9 * result.time_s
    assert result.bound_by["run"] == WAITS


def test_expanded_grants_revoke_the_objects_last_grantee_where_nobody_has_written() -> None:
    # 4 nodes of 4 ranks, 16 records (752,128 bytes) a segment over two objects in 256 KiB
    # stripes: a stripe nobody has written yet is free without expanded grants; with them the
    # object's last grant covers it, and a first writer of another node revokes that grant.
    plain = small_platform(lock_conflict_s=0.01)
    expanded = small_platform(lock_conflict_s=0.01, expanded_grants=True)
    wl = records(16, 4, segments=8)
    [without] = run(plain, wl, striped(2, 256 * 1024))
    [with_them] = run(expanded, wl, striped(2, 256 * 1024))
    assert with_them.breakdown["lock_conflicts"] > without.breakdown["lock_conflicts"] > 0
    assert with_them.time_by_mechanism[WAITS] > without.time_by_mechanism[WAITS]


def test_expanded_grants_leave_a_single_node_alone() -> None:
    one_node = records(32, 1, segments=4)
    for platform in (small_platform(lock_conflict_s=0.01),
                     small_platform(lock_conflict_s=0.01, expanded_grants=True)):
        [result] = run(platform, one_node, striped(4))
        assert result.breakdown["lock_conflicts"] == 0
