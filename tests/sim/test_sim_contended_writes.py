"""A node's writes to one file under a client that lets them in one at a time
(contended_writes.hpp): one writer a node goes at its process rate, w writers of one node at
1 / (1/process + (1/contended - 1/process) (1 - 1/w)). Worked by hand: 4 processes of 100 MB,
process 1,000 MB/s, contended 500 MB/s, targets and links too fast to matter: on one node
the 400 MB go at 1 / (1/1000 + (1/500 - 1/1000) x 3/4) = 571.4 MB/s, 0.7 s; one a node,
100 MB at 1,000 MB/s, 0.1 s; each process its own file, as fast (a mutex a file)."""

from __future__ import annotations

import pytest
from iotwin.core.errors import InputError
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import leaf, run, small_platform, workload

CLIENT_NODES = "client nodes (Lustre client)"
BLOCK = 100_000_000


def with_contention(contended_mbs: float) -> Platform:
    tree = small_platform(target_mbs=1e6, cores_per_node=4).tree
    tree["lustre_client"] = {"process_write_mbs": leaf(1000),
                             "contended_write_mbs": leaf(contended_mbs)}
    return parse_platform(tree, "test")


def write_seconds(platform: Platform, ranks_per_node: int, *, per_rank: bool = False) -> float:
    wl = workload(4, BLOCK, api="posix", ranks_per_node=ranks_per_node)
    if per_rank:  # each process its own file, of its block
        wl["files"][0].update(name="t.%r", mode="per-rank")
        wl["files"][0]["datasets"][0]["decomposition"] = {"grid": [1], "block": [BLOCK]}
    [result] = run(platform, wl, {"lustre": {"stripe_count": 4}})
    return result.phases["write"]


def test_a_nodes_writers_of_one_file_share_its_contended_rate() -> None:
    seconds = write_seconds(with_contention(500), ranks_per_node=4)
    shared_mbs = 1 / (1 / 1000 + (1 / 500 - 1 / 1000) * 0.75)  # 571.4
    assert seconds == pytest.approx(4 * BLOCK / (shared_mbs * 1e6), rel=1e-6)
    [result] = run(with_contention(500), workload(4, BLOCK, api="posix", ranks_per_node=4),
                   {"lustre": {"stripe_count": 4}})
    assert result.bound_by["run"] == CLIENT_NODES


def test_one_writer_a_node_goes_at_its_process_rate() -> None:
    seconds = write_seconds(with_contention(500), ranks_per_node=1)
    assert seconds == pytest.approx(BLOCK / 1e9, rel=1e-6)


def test_a_nodes_writers_of_their_own_files_do_not_wait_for_each_other() -> None:
    seconds = write_seconds(with_contention(500), ranks_per_node=4, per_rank=True)
    assert seconds == pytest.approx(BLOCK / 1e9, rel=1e-6)


def test_without_the_constant_a_nodes_writers_are_not_slowed() -> None:
    seconds = write_seconds(with_contention(0), ranks_per_node=4)
    assert seconds == pytest.approx(BLOCK / 1e9, rel=1e-6)


def test_a_negative_contended_rate_is_one_error_naming_it() -> None:
    with pytest.raises(InputError, match=r"lustre_client\.contended_write_mbs"):
        with_contention(-1)
