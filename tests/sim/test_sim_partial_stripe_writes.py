"""A target's small writes (partial_stripe_writes.hpp): the holder's flush at an extent-lock
revocation is a write smaller than the target's RAID stripe. On a parity group of raw drives it
is a read-modify-write (the reads, then the writes: two positionings of the drives); behind an
array controller's write-back cache it is the cache's write; on flash one request. IOR's hard
write (47,008-byte records, one shared file, ten nodes) waits for such flushes; a whole-stripe
writer takes no revocation and does not see the difference."""

from __future__ import annotations

from typing import Any

from iotwin.model.platforms import Platform, parse_platform
from iotwin.model.sim import simulate
from support.ior_records import records, striped
from support.small_platform import MiB, leaf, run, small_platform, workload

WAITS = "extent-lock revocation waits"
CALLBACK_S = 0.002  # the lock server's callback round trip
POSITIONING_S = 0.01  # one request of the target's drives
CACHE_WRITE_S = 0.0002


def with_raid(raid: str | None, passes: int = 2) -> Platform:
    tree = small_platform(rpc_overhead_s=POSITIONING_S, lock_conflict_s=CALLBACK_S).tree
    fs = tree["filesystem"]
    if raid is not None:
        fs["target_raid"] = leaf(raid)
        fs["read_modify_write_passes"] = leaf(passes)
        fs["cache_write_s"] = leaf(CACHE_WRITE_S)
    return parse_platform(tree, "test")


def revocation_waits(platform: Platform, wl: dict[str, Any]) -> float:
    [result] = run(platform, wl, striped(4))
    return result.time_by_mechanism.get(WAITS, 0.0)


def test_each_revocation_waits_for_its_holders_small_write_as_the_targets_raid_takes_it() -> None:
    hard = records(30, 10, segments=8)
    flush_s = {None: POSITIONING_S, "none": POSITIONING_S, "parity": 2 * POSITIONING_S,
               "cached_array": CACHE_WRITE_S}
    waits = {raid: revocation_waits(with_raid(raid), hard) for raid in flush_s}
    # the same revocations everywhere; each one the callback and the holder's flush
    counts = {raid: waits[raid] / (CALLBACK_S + flush_s[raid]) for raid in flush_s}
    first = counts[None]
    assert first >= 8 and abs(first - round(first)) < 1e-6
    for count in counts.values():
        assert abs(count - first) < 1e-6


def test_more_passes_of_a_read_modify_write_wait_longer() -> None:
    hard = records(30, 10, segments=8)
    two, three = (revocation_waits(with_raid("parity", passes), hard) for passes in (2, 3))
    count = two / (CALLBACK_S + 2 * POSITIONING_S)
    assert abs(three - count * (CALLBACK_S + 3 * POSITIONING_S)) < 1e-9 * three


def test_whole_stripe_writers_take_no_revocation_whatever_the_raid() -> None:
    whole = workload(8, 4 * MiB, api="posix", ranks_per_node=1)
    rates = [run(with_raid(raid), whole, striped(4))[0].rate_mbs
             for raid in (None, "parity", "cached_array")]
    assert rates[0] == rates[1] == rates[2]


def test_an_unknown_raid_is_one_error_naming_it() -> None:
    [result] = simulate(with_raid("raid5"), records(30, 10), [{}])
    assert not result.ok
    assert "target_raid" in result.error and "raid5" in result.error
