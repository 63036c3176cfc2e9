"""iosim's placement of OSTs on servers: OST i on server i mod servers, so a file's consecutive
stripe objects are served by different servers."""

from __future__ import annotations

import pytest
from support.small_platform import MB, MiB, run, small_platform, workload


def test_a_files_consecutive_osts_are_on_different_servers() -> None:
    size = 8 * MiB
    # 4 OSTs on 2 servers: OSTs 0 and 1 are on servers 0 and 1.
    [r] = run(small_platform(), workload(1, size),
              {"lustre": {"stripe_count": 2, "stripe_size": "1MiB", "stripe_offset": 0}})
    assert r.breakdown["bytes_per_target"] == [size // 2, size // 2, 0, 0]
    assert r.breakdown["bytes_per_server"] == [size // 2, size // 2]


def test_two_stripes_use_two_server_links() -> None:
    size = 64 * MiB
    # Each server link carries 150 MB/s, each OST 100 MB/s: two OSTs on one server would be
    # held to 150 MB/s together; on two servers they write at 200 MB/s.
    [r] = run(small_platform(server_mbs=150), workload(1, size),
              {"lustre": {"stripe_count": 2, "stripe_size": "1MiB", "stripe_offset": 0}})
    assert r.phases["write"] == pytest.approx(size / (200 * MB), rel=1e-6)
