"""iosim's Lustre client: write-back up to a dirty budget per OSC, and a per-process write rate,
on the small synthetic platform of test_sim_mechanisms (4 OSTs of 100 MB/s, other costs zero)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.core.errors import UserError
from iotwin.model.platforms import Platform, parse_platform
from iotwin.model.sim import simulate
from support.small_platform import MB, MiB, run, small_platform, workload


def with_client(platform: Platform, *, dirty: int, process_mbs: float,
                node_mbs: float = 0, close_flushes: bool = True) -> Platform:
    tree = copy.deepcopy(platform.tree)
    tree["lustre_client"] = {
        "osc_dirty_bytes": {"value": dirty, "assumption": "test"},
        "process_write_mbs": {"value": process_mbs, "assumption": "test"},
        "node_write_mbs": {"value": node_mbs, "assumption": "test"},
        "close_flushes": {"value": close_flushes, "assumption": "test"},
    }
    return parse_platform(tree, "test")


def round_robin(stripes: int) -> dict[str, Any]:
    """One aggregator writing one stripe per two-phase round: successive rounds go to
    successive OSTs."""
    return {"lustre": {"stripe_count": stripes, "stripe_size": "4MiB"},
            "mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "4MiB"}}


def test_one_writer_one_ost_still_takes_size_over_bandwidth_with_a_larger_budget() -> None:
    size = 16 * MiB
    plain = small_platform(rpc_overhead_s=0.01)
    cached = with_client(plain, dirty=64 * MiB, process_mbs=10_000)
    [before] = run(plain, workload(1, size))
    [after] = run(cached, workload(1, size))
    expected = size / (100 * MB) + 16 * 0.01
    assert before.time_s == pytest.approx(expected, rel=1e-6)
    assert after.time_s == pytest.approx(expected, rel=1e-6)
    # The write returns after the copy; the close waits for the rest of the flush.
    assert after.phases["write"] == pytest.approx(size / (10_000 * MB), rel=1e-6)
    assert after.phases["close"] == pytest.approx(expected - size / (10_000 * MB), rel=1e-6)


def test_a_close_that_does_not_flush_leaves_the_cached_writes_behind() -> None:
    """A page cache: close(2) does not wait for dirty pages, an H5Fflush (fsync) does."""
    size = 16 * MiB
    page_cache = with_client(small_platform(), dirty=64 * MiB, process_mbs=1_000,
                             close_flushes=False)
    [r] = run(page_cache, workload(1, size))
    assert r.phases["write"] == pytest.approx(size / (1_000 * MB), rel=1e-6)
    assert r.phases["close"] == 0
    flushed = workload(1, size)
    flushed["files"][0]["flushes"] = 1
    [f] = run(page_cache, flushed)
    assert f.time_s == pytest.approx(size / (100 * MB), rel=1e-6)


def test_close_flushes_must_be_true_or_false() -> None:
    tree = copy.deepcopy(with_client(small_platform(), dirty=MiB, process_mbs=1).tree)
    tree["lustre_client"]["close_flushes"]["value"] = "no"
    with pytest.raises(Exception, match="close_flushes"):
        run(parse_platform(tree, "test"), workload(1, MiB))


def test_write_back_overlaps_rounds_on_successive_osts() -> None:
    size = 64 * MiB
    wl = workload(1, size, transfer="collective")
    plain = small_platform()
    [through] = run(plain, wl, round_robin(4))
    [back] = run(with_client(plain, dirty=32 * MiB, process_mbs=100_000), wl, round_robin(4))
    # Without the cache every round waits for its one OST (after copying its data into the
    # collective buffer); with it the 4 OSTs work together.
    assert through.time_s == pytest.approx(size / (100 * MB) + size / (1e6 * MB), rel=1e-6)
    assert back.time_s == pytest.approx(size / (4 * 100 * MB), rel=0.05)
    assert back.time_s >= size / (4 * 100 * MB)


def test_write_back_is_capped_by_the_process_write_rate() -> None:
    size = 64 * MiB
    wl = workload(1, size, transfer="collective")
    [r] = run(with_client(small_platform(), dirty=32 * MiB, process_mbs=200), wl, round_robin(4))
    # 4 OSTs could take 400 MB/s; one process pushes 200 MB/s, and the last round's stripe
    # still goes to its one OST at 100 MB/s.
    stripe = 4 * MiB
    expected = (size - stripe) / (200 * MB) + stripe / (100 * MB)
    assert r.time_s == pytest.approx(expected, rel=1e-3)


def test_a_budget_below_one_round_writes_through() -> None:
    size = 64 * MiB
    wl = workload(1, size, transfer="collective")
    plain = small_platform()
    [through] = run(plain, wl, round_robin(4))
    [tight] = run(with_client(plain, dirty=MiB, process_mbs=100_000), wl, round_robin(4))
    assert tight.time_s == pytest.approx(through.time_s, rel=1e-6)


def test_more_budget_never_slows_a_run() -> None:
    size = 64 * MiB
    wl = workload(4, size // 4, transfer="collective", ranks_per_node=2)
    platforms = [with_client(small_platform(), dirty=budget, process_mbs=1000)
                 for budget in (MiB, 4 * MiB, 16 * MiB, 64 * MiB)]
    times = [run(p, wl, round_robin(4))[0].time_s for p in platforms]
    assert times == sorted(times, reverse=True)
    assert times[-1] < times[0]


def test_process_rate_limits_writes_without_a_cache() -> None:
    size = 16 * MiB
    [r] = run(with_client(small_platform(), dirty=0, process_mbs=50), workload(1, size))
    assert r.phases["write"] == pytest.approx(size / (50 * MB), rel=1e-6)
    assert r.phases["close"] == 0


def test_node_rate_limits_the_processes_of_a_node_together() -> None:
    size = 16 * MiB
    # 2 ranks on one node, each to its own OST at 100 MB/s, each process up to 1000 MB/s.
    wl = workload(2, size, ranks_per_node=2)
    cfg = {"lustre": {"stripe_count": 2, "stripe_size": "16MiB"}}
    [free] = run(with_client(small_platform(), dirty=0, process_mbs=1000), wl, cfg)
    [capped] = run(with_client(small_platform(), dirty=0, process_mbs=1000, node_mbs=50), wl, cfg)
    assert free.phases["write"] == pytest.approx(size / (100 * MB), rel=1e-6)
    assert capped.phases["write"] == pytest.approx(2 * size / (50 * MB), rel=1e-6)


def test_a_negative_process_rate_is_an_error_naming_it() -> None:
    # refused where the model is made, as the sheet's key would be (model/sheet_schema.py)
    with pytest.raises(UserError, match=r"lustre_client\.process_write_mbs: -1 is not a bandwidth"):
        simulate(with_client(small_platform(), dirty=0, process_mbs=-1), workload(1, MiB), [{}])


@pytest.mark.parametrize("config", [
    {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "2MiB"},
     "lustre": {"stripe_count": 4, "stripe_size": "1MiB"}},
    {"mpiio": {"romio_cb_write": "disable"}, "lustre": {"stripe_count": 4}},
])
def test_aggregated_and_per_rank_simulations_agree_with_the_client(config: dict[str, Any]) -> None:
    wl = workload(16, 6 * MiB, transfer="collective", ranks_per_node=4)
    plat = with_client(small_platform(), dirty=8 * MiB, process_mbs=300, node_mbs=500)
    [aggregated] = run(plat, wl, config)
    [per_rank] = run(plat, wl, config, aggregate=False)
    assert aggregated.time_s == pytest.approx(per_rank.time_s, rel=0.05)


def rows_workload(rows: int, row_bytes: int) -> dict[str, Any]:
    """2 ranks side by side, each writing `rows` rows of `row_bytes` through HDF5
    independently: HDF5 hands each row to the MPI-IO layer as a call of its own."""
    wl = workload(2, 1, api="hdf5")
    wl["files"][0]["datasets"][0]["decomposition"] = {"grid": [1, 2], "block": [rows, row_bytes]}
    return wl


@pytest.mark.parametrize("rows", [16, 256])
def test_each_write_call_costs_its_process_write_call_s(rows: int) -> None:
    size = 4 * MiB   # a rank's bytes, in `rows` calls
    base = with_client(small_platform(), dirty=64 * MiB, process_mbs=1_000,
                       close_flushes=False)
    tree = copy.deepcopy(base.tree)
    tree["lustre_client"]["write_call_s"] = {"value": 1e-4, "assumption": "test"}
    costly = parse_platform(tree, "test")
    wl = rows_workload(rows, size // rows)
    [free] = run(base, wl)
    [paid] = run(costly, wl)
    assert free.phases["write"] == pytest.approx(size / (1_000 * MB), rel=1e-6)
    assert paid.phases["write"] - free.phases["write"] == pytest.approx(rows * 1e-4, rel=1e-6)


def test_write_call_s_must_not_be_negative() -> None:
    tree = copy.deepcopy(with_client(small_platform(), dirty=MiB, process_mbs=1).tree)
    tree["lustre_client"]["write_call_s"] = {"value": -1e-6, "assumption": "test"}
    with pytest.raises(Exception, match="write_call_s"):
        run(parse_platform(tree, "test"), workload(1, MiB))
