"""GPFS's token server (token_server.hpp): every revocation of a shared file's byte-range tokens
is a request at the file's one token server, served one after another. IOR's hard write on GPFS
(47,008-byte records, 3 processes a node, 4 MiB blocks) makes the nodes take each block from
one another in every segment: the file's revocations, not any one disk, set the pace."""

from __future__ import annotations

from iotwin.model.platforms import Platform, parse_platform
from support.ior_records import records
from support.small_platform import MiB, run, small_platform

WAITS = "extent-lock revocation waits"


def gpfs(token_ops_per_s: float, rpc_overhead_s: float = 0.0) -> Platform:
    """The small platform as GPFS, its disks fast enough for the tokens to matter."""
    tree = small_platform(target_mbs=10000, rpc_overhead_s=rpc_overhead_s).tree
    fs = tree["filesystem"]
    fs["type"] = "gpfs"
    for key, value in (("lock_block_bytes", 4 * MiB), ("token_ops_per_s", token_ops_per_s)):
        fs[key] = {"value": value, "assumption": "test platform"}
    return parse_platform(tree, "test")


def test_a_shared_file_of_sub_block_records_is_bound_by_its_token_server() -> None:
    [result] = run(gpfs(2000), records(30, 10, segments=8))
    conflicts = result.breakdown["lock_conflicts"]
    assert conflicts > 0
    assert result.bound_by["run"] == WAITS
    # every revocation one request, one after another: the waits are the requests' time
    assert abs(result.time_by_mechanism[WAITS] - conflicts / 2000) <= 1e-9 * result.time_s


def test_the_rate_rises_with_the_token_servers_rate() -> None:
    rates = [run(gpfs(ops), records(30, 10, segments=8))[0].rate_mbs for ops in (1000, 4000)]
    assert rates[1] > 1.5 * rates[0]


def test_lustres_callback_cost_does_not_apply_to_a_gpfs_revocation() -> None:
    slow_callback = gpfs(2000).tree
    slow_callback["filesystem"]["lock_conflict_s"]["value"] = 0.05
    rates = [run(platform, records(30, 10, segments=8))[0].rate_mbs
             for platform in (gpfs(2000), parse_platform(slow_callback, "test"))]
    assert rates[0] == rates[1]


def test_a_slow_holders_flush_binds_once_the_server_is_fast() -> None:
    # each writer waits for its holder's flush (a request at the disk) besides its own token
    # request: with the server fast, the flushes bind and its rate no longer shows
    slow_flush = 0.01
    fast = [run(gpfs(ops, slow_flush), records(30, 10, segments=8))[0]
            for ops in (1e5, 4e5)]
    assert fast[0].time_by_mechanism[WAITS] > 8 * slow_flush
    assert fast[1].rate_mbs < 1.01 * fast[0].rate_mbs


def test_one_node_writing_the_file_asks_the_server_nothing() -> None:
    [result] = run(gpfs(1000), records(3, 1, segments=8))
    assert result.breakdown["lock_conflicts"] == 0
    assert WAITS not in result.time_by_mechanism
