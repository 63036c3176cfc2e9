"""iosim's first touch of a collective buffer (sim-models/src/mpiio/first_touch.hpp): an aggregator
pays for the pages of its buffer that a round fills for the first time in the file session,
beyond the platform's warm bytes, at its first_touch_mbs; on the small synthetic platform of
test_sim_mechanisms."""

from __future__ import annotations

import copy

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import MB, MiB, leaf, run, small_platform, workload

RATE_MBS = 100
WARM = MiB
RANK_BYTES = 8 * MiB   # 2 ranks on one node: one aggregator's domain is 16 MiB


def with_first_touch(rate_mbs: float, warm: int = WARM) -> Platform:
    tree = copy.deepcopy(small_platform().tree)
    tree["network"]["first_touch_mbs"] = leaf(rate_mbs)
    tree["network"]["first_touch_warm_bytes"] = leaf(warm)
    return parse_platform(tree, "test")


def buffered(size: int) -> dict[str, object]:
    return {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": size, "cb_nodes": 1}}


def extra_write_s(size: int, datasets: int = 1) -> float:
    wl = workload(2, RANK_BYTES, transfer="collective", ranks_per_node=2, datasets=datasets)
    [free] = run(small_platform(), wl, buffered(size), write_paths=True)
    [paid] = run(with_first_touch(RATE_MBS), wl, buffered(size))
    assert set(free.breakdown["write_paths"]) == {"two-phase"}
    return paid.phases["write"] - free.phases["write"]


@pytest.mark.parametrize("size", [MiB, 4 * MiB, 8 * MiB])
def test_an_aggregator_pays_for_its_buffers_pages_beyond_the_warm_bytes(size: int) -> None:
    assert extra_write_s(size) == pytest.approx((size - WARM) / (RATE_MBS * MB), abs=1e-9)


def test_a_buffer_larger_than_the_domain_is_touched_only_as_far_as_it_is_filled() -> None:
    domain = 2 * RANK_BYTES
    assert extra_write_s(64 * MiB) == pytest.approx((domain - WARM) / (RATE_MBS * MB), rel=1e-6)


def test_a_file_sessions_calls_reuse_the_buffer_their_first_call_touched() -> None:
    assert extra_write_s(4 * MiB, datasets=3) == pytest.approx(extra_write_s(4 * MiB), rel=1e-6)


def test_a_platform_without_a_first_touch_rate_charges_none() -> None:
    wl = workload(2, RANK_BYTES, transfer="collective", ranks_per_node=2)
    [plain] = run(small_platform(), wl, buffered(8 * MiB))
    [zero] = run(with_first_touch(0), wl, buffered(8 * MiB))
    assert zero.phases["write"] == plain.phases["write"]


def test_first_touch_mbs_must_not_be_negative() -> None:
    with pytest.raises(Exception, match="first_touch_mbs"):
        run(with_first_touch(-1), workload(1, MiB))
