"""A call repeated many times is planned and timed once per distinct repetition
(repeat_fold.hpp, LustreClient::run_block): the folded answer must be the one of every
repetition planned and timed (options.fold_repeats false), and grow with the repetitions as a
steady state does."""

from __future__ import annotations

import copy
import shlex
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from iotwin.workloads.ior import ior_workload, parse_ior
from support.small_platform import MiB, run, small_platform

RANKS, NODES = 8, 4


def with_client(platform: Platform, **client: float) -> Platform:
    tree = copy.deepcopy(platform.tree)
    tree["lustre_client"] = {k: {"value": v, "assumption": "test"} for k, v in client.items()}
    return parse_platform(tree, "test")


def costly() -> Platform:
    """Per-RPC, lock and create costs, and a write-back client whose budget holds a few
    repetitions per OSC."""
    base = small_platform(rpc_overhead_s=3e-4, lock_conflict_s=2e-3, create_s=5e-3,
                          collective_step_s=5e-6)
    return with_client(base, osc_dirty_bytes=8 * MiB, process_write_mbs=300,
                       write_call_s=2e-5)


PLATFORMS = {"write-through": lambda: small_platform(rpc_overhead_s=3e-4, lock_conflict_s=2e-3),
             "write-back": costly}


def easy(transfers: int, stripes: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    """IO500's ior-easy: a file per process, `transfers` writes of 1 MiB each."""
    command = f"-a POSIX -w -e -F -t 1m -b {transfers}m"
    work = ior_workload(parse_ior(command.split()), RANKS, NODES, "ior " + command)
    return work, {"lustre": {"stripe_count": stripes, "stripe_size": "1MiB"}}


def hard(segments: int, stripes: int = 4) -> tuple[dict[str, Any], dict[str, Any]]:
    """IO500's ior-hard shape: one shared file of records that straddle stripes, `segments` of
    them a process (48 KiB records, so that the OST cycle comes back every 32 segments; IO500's
    47,008 bytes come back every 4,096)."""
    command = f"-a POSIX -w -e -t 48k -b 48k -s {segments}"
    work = ior_workload(parse_ior(command.split()), RANKS, NODES, "ior " + command)
    return work, {"lustre": {"stripe_count": stripes, "stripe_size": "1MiB"}}


def both(platform: Platform, work: dict[str, Any], config: dict[str, Any]) -> tuple[Any, Any]:
    [folded] = run(platform, work, config)
    [explicit] = run(platform, work, config, fold_repeats=False)
    return folded, explicit


def assert_same(a: Any, b: Any) -> None:
    assert a.time_s == pytest.approx(b.time_s, rel=1e-9)
    assert a.phases == pytest.approx(b.phases, rel=1e-9)
    assert a.time_by_mechanism == pytest.approx(b.time_by_mechanism, rel=1e-9, abs=1e-12)
    breakdown = {k: v for k, v in a.breakdown.items() if k != "distinct_phases_simulated"}
    assert breakdown == {k: v for k, v in b.breakdown.items() if k != "distinct_phases_simulated"}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("stripes", [1, 2])
def test_a_folded_file_per_process_phase_is_the_explicit_one(platform: str, stripes: int) -> None:
    assert_same(*both(PLATFORMS[platform](), *easy(1000, stripes)))


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_a_folded_shared_record_phase_is_the_explicit_one(platform: str) -> None:
    folded, explicit = both(PLATFORMS[platform](), *hard(300))
    assert folded.breakdown["lock_conflicts"] > 0
    assert_same(folded, explicit)


@pytest.mark.parametrize("budget_mib", [64, 512])
def test_a_window_of_many_folded_blocks_is_the_explicit_one(budget_mib: int) -> None:
    """A budget that holds thousands of segments per OSC: the client adds the orbits of block
    runs that flush nothing in closed form, up to the flushes (64 MiB) or to the close
    (512 MiB: no window fills)."""
    platform = with_client(costly(), osc_dirty_bytes=budget_mib * MiB, process_write_mbs=300,
                           write_call_s=2e-5)
    folded, explicit = both(platform, *hard(6000))
    assert_same(folded, explicit)


@pytest.mark.parametrize("cells", [0, 8])
def test_a_window_found_by_hash_is_the_window_found_by_table(cells: int) -> None:
    """The client finds a window's OSCs in a table by node and target (4 targets a row here),
    and by a hash once the table would pass options.osc_table_cells (osc_window.hpp): from the
    first write (0), or from the third of the 4 nodes (8), its entries moved to the hash."""
    platform = with_client(costly(), osc_dirty_bytes=64 * MiB, process_write_mbs=300,
                           write_call_s=2e-5)
    work, config = hard(6000)
    [table] = run(platform, work, config)
    [hashed] = run(platform, work, config, osc_table_cells=cells)
    assert table.breakdown["lock_conflicts"] > 0
    assert (hashed.time_s, hashed.time_by_mechanism) == (table.time_s, table.time_by_mechanism)


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_many_repetitions_cost_what_the_steady_state_says(platform: str) -> None:
    """Past its first repetitions a phase of identical writes is periodic: 4096 repetitions take
    the time of 64 plus 4032 times the time each later one adds."""
    machine = PLATFORMS[platform]()
    times = {n: run(machine, *easy(n))[0].time_s for n in (64, 128, 4096)}
    each = (times[128] - times[64]) / 64
    assert times[4096] == pytest.approx(times[64] + (4096 - 64) * each, rel=1e-6)


def test_a_repeated_contiguous_write_takes_the_time_of_one_call_without_per_call_costs() -> None:
    """Without a client cache or per-call costs, 1,024 writes of 1 MiB one after another along
    a process's file take what one write of 1 GiB takes (the OSTs' bandwidth)."""
    machine = small_platform()
    repeated, config = easy(1024)
    single = ior_workload(parse_ior(shlex.split("-a POSIX -w -e -F -t 1024m -b 1024m")), RANKS,
                          NODES, "ior")
    [a] = run(machine, repeated, config)
    [b] = run(machine, single, config)
    assert a.time_s == pytest.approx(b.time_s, rel=1e-6)
    assert a.breakdown["bytes_per_target"] == b.breakdown["bytes_per_target"]
    assert a.breakdown["posix"]["writes"] == 1024 * b.breakdown["posix"]["writes"]
