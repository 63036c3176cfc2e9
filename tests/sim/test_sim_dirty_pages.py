"""A page cache that holds its dirty pages (sim-models/src/fs/dirty_pages.hpp): the write-back
starts at the flush, and a write over bytes still dirty in a node's cache is a copy, the
targets taking those bytes once. Worked by hand on the small platform of test_sim_mechanisms
(4 OSTs of 100 MB/s, a file on one of them, other costs zero) with a write-back cache of 1 GiB
a client node and copies into it at 1,000 MB/s."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.model.platforms import Platform, parse_platform
from support.small_platform import MB, MiB, run, small_platform, workload

COPY_MBS = 1_000    # a process's copy into the cache
MEMCPY_MBS = 1e6    # the small platform's: HDF5's fill buffer set up in no time to speak of


def page_cache(holds: bool) -> Platform:
    tree = copy.deepcopy(small_platform().tree)
    tree["lustre_client"] = {
        "osc_dirty_bytes": {"value": 1 << 30, "assumption": "test"},
        "process_write_mbs": {"value": COPY_MBS, "assumption": "test"},
        "close_flushes": {"value": False, "assumption": "test"},
        "holds_dirty_pages": {"value": holds, "assumption": "test"},
    }
    return parse_platform(tree, "test")


def flushed_hdf5(ranks: int, block: int) -> dict[str, Any]:
    """An HDF5 dataset of `ranks` blocks, a rank a node, each writing its own, the file
    flushed once at the end (H5Fflush: the run ends with the data on the targets)."""
    wl = workload(ranks, block, api="hdf5")
    wl["files"][0]["flushes"] = 1
    return wl


SIZE = 8 * MiB
FILLED = {"dataset": {"chunk_dims": [SIZE], "fill_time": "alloc"}}   # one chunk
UNFILLED = {"dataset": {"chunk_dims": [SIZE], "fill_time": "never"}}
COPY_S = SIZE / (COPY_MBS * MB)  # 8.4 ms
DISK_S = SIZE / (100 * MB)       # 84 ms


def test_the_write_back_of_held_pages_starts_at_the_flush() -> None:
    """Held, the pages wait for the H5Fflush's fsync: the copy, then the disk. Sent as RPCs
    fill (Lustre's OSC), the disk writes while the process copies."""
    wl = flushed_hdf5(1, SIZE)
    [held] = run(page_cache(True), wl, UNFILLED)
    [sent] = run(page_cache(False), wl, UNFILLED)
    assert held.time_s == pytest.approx(COPY_S + DISK_S, rel=1e-6)
    assert sent.time_s == pytest.approx(DISK_S, rel=1e-6)


def test_the_fill_and_the_data_over_it_reach_the_disk_once() -> None:
    """HDF5's fill buffer of one chunk set up, the fill and the data copied into the cache,
    then the fsync writes the 8 MiB once: the fill cost a copy, not a second write."""
    wl = flushed_hdf5(1, SIZE)
    [filled, unfilled] = run(page_cache(True), wl, FILLED, UNFILLED)
    setup = SIZE / (MEMCPY_MBS * MB)
    assert filled.time_s == pytest.approx(setup + 2 * COPY_S + DISK_S, rel=1e-6)
    assert unfilled.time_s == pytest.approx(COPY_S + DISK_S, rel=1e-6)
    assert sum(filled.breakdown["bytes_per_target"]) == SIZE
    assert sum(unfilled.breakdown["bytes_per_target"]) == SIZE
    # Not held: the disk takes the fill and the data, one after the other.
    [sent] = run(page_cache(False), wl, FILLED)
    assert sum(sent.breakdown["bytes_per_target"]) == 2 * SIZE
    assert sent.time_s == pytest.approx(setup + 2 * DISK_S, rel=1e-6)


def test_the_ceiling_counts_the_bytes_the_disk_takes() -> None:
    wl = flushed_hdf5(1, SIZE)
    [held] = run(page_cache(True), wl, FILLED)
    [sent] = run(page_cache(False), wl, FILLED)
    # 8 MiB of payload over one 100 MB/s OST that takes it once, or twice.
    assert held.ceiling_mbs == pytest.approx(100, rel=1e-6)
    assert sent.ceiling_mbs == pytest.approx(50, rel=1e-6)


def test_a_nodes_cache_holds_its_own_writes_only() -> None:
    """Rank 0 fills a contiguous dataset alone (H5D__contig_fill); of the data over it, rank 0's
    half is written on the node that holds the fill dirty, rank 1's on another node."""
    wl = flushed_hdf5(2, SIZE // 2)
    wl["files"][0]["datasets"][0]["fill_value"] = "user"
    [r] = run(page_cache(True), wl, {"dataset": {"fill_time": "ifset"}})
    assert sum(r.breakdown["bytes_per_target"]) == SIZE + SIZE // 2


def test_a_flush_between_the_fill_and_the_data_writes_the_fill_back() -> None:
    """netCDF-4 flushes the file at nc_enddef (a `sync`: fsync), after the fill: the data then
    dirties pages that are clean again, and the disk takes both."""
    wl = workload(1, SIZE, api="netcdf4")
    wl["files"][0]["datasets"][0]["fill_value"] = "user"
    [held, sent] = [run(page_cache(holds), wl)[0] for holds in (True, False)]
    assert sum(held.breakdown["bytes_per_target"]) == sum(sent.breakdown["bytes_per_target"])
    assert sum(held.breakdown["bytes_per_target"]) >= 2 * SIZE


def test_holds_dirty_pages_must_be_true_or_false() -> None:
    tree = copy.deepcopy(page_cache(True).tree)
    tree["lustre_client"]["holds_dirty_pages"]["value"] = "yes"
    with pytest.raises(Exception, match="holds_dirty_pages"):
        run(parse_platform(tree, "test"), workload(1, MiB))


def two_writers_of_alternate_rows(cols: int) -> dict[str, Any]:
    """Two ranks of one node write alternate `cols`-byte pieces of 256 rows (a 2-D dataset
    split by columns): HDF5's independent transfer hands each piece over as a call of its own."""
    return {"iotwin_workload": 1, "name": "t", "ranks": 2, "ranks_per_node": 2,
            "files": [{"name": "t.h5", "api": "hdf5", "flushes": 1, "datasets": [
                {"name": "/d", "element_bytes": 1, "transfer": "independent",
                 "decomposition": {"grid": [1, 2], "block": [256, cols]}}]}]}


def with_request_cost(holds: bool) -> Platform:
    tree = copy.deepcopy(page_cache(holds).tree)
    tree["filesystem"]["rpc_overhead_s"]["value"] = 1e-3
    tree["compute"]["cores_per_node"]["value"] = 2
    return parse_platform(tree, "test")


@pytest.mark.parametrize(("cols", "requests"), [(1024, 1), (4096, 2)])
def test_the_write_back_sends_the_dirty_runs_not_the_calls(cols: int, requests: int) -> None:
    """512 calls whose pieces, both writers' together, leave one contiguous run of 512 KiB or
    2 MiB: the write-back sends it as requests of at most 1 MiB (the small platform's
    largest), each paying the target's 1 ms, where a cache that sends what each call wrote
    pays it 512 times."""
    unfilled = {"dataset": {"fill_time": "never"}}
    wl = two_writers_of_alternate_rows(cols)
    [held] = run(with_request_cost(True), wl, unfilled)
    [sent] = run(with_request_cost(False), wl, unfilled)
    assert held.breakdown["posix"]["writes"] == sent.breakdown["posix"]["writes"] == 512
    assert held.breakdown["rpcs"] == requests and sent.breakdown["rpcs"] == 512
    assert held.time_by_mechanism["OSTs (request service)"] == pytest.approx(requests * 1e-3,
                                                                             rel=1e-5)
    assert sent.time_by_mechanism["OSTs (request service)"] == pytest.approx(0.512, rel=1e-2)
    disk_s = 2 * 256 * cols / (100 * MB)
    assert held.time_by_mechanism["OSTs (bandwidth)"] == pytest.approx(disk_s, rel=1e-5)


def with_folio_cost() -> Platform:
    """A page cache whose write-back costs 1 ms a folio, folios up to 64 KiB."""
    tree = copy.deepcopy(page_cache(True).tree)
    tree["lustre_client"]["writeback_folio_s"] = {"value": 1e-3, "assumption": "test"}
    tree["lustre_client"]["max_folio_bytes"] = {"value": 64 * 1024, "assumption": "test"}
    tree["compute"]["cores_per_node"]["value"] = 2
    return parse_platform(tree, "test")


def test_a_write_back_pays_a_folio_each_as_large_as_the_write_that_made_it() -> None:
    """2 MiB from two writers either way: 2,048 calls of 1 KiB make a page each per 4 KiB,
    512 folios; two calls of 1 MiB make folios of the largest size, 64 KiB, 32 of them."""
    unfilled = {"dataset": {"fill_time": "never"}}
    rows = two_writers_of_alternate_rows(1024)
    rows["files"][0]["datasets"][0]["decomposition"]["block"] = [1024, 1024]
    blocks = flushed_hdf5(2, MiB)
    blocks["ranks_per_node"] = 2
    [small] = run(with_folio_cost(), rows, unfilled)
    [large] = run(with_folio_cost(), blocks, unfilled)
    assert small.breakdown["payload_bytes"] == large.breakdown["payload_bytes"] == 2 * MiB
    assert small.time_by_mechanism["OSTs (request service)"] == pytest.approx(0.512, rel=1e-5)
    assert large.time_by_mechanism["OSTs (request service)"] == pytest.approx(0.032, rel=1e-5)


@pytest.mark.parametrize(("leaf", "value"), [("writeback_folio_s", -1e-6),
                                             ("max_folio_bytes", 1024)])
def test_impossible_folio_leaves_are_refused_by_name(leaf: str, value: float) -> None:
    tree = copy.deepcopy(page_cache(True).tree)
    tree["lustre_client"][leaf] = {"value": value, "assumption": "test"}
    with pytest.raises(Exception, match=leaf):
        run(parse_platform(tree, "test"), workload(1, MiB))


def writes_apart_then_flushed() -> dict[str, Any]:
    """One process writes 4 MiB, computes for 1 s, writes 4 MiB more, then flushes the file:
    a captured program's session (calls with computation between them)."""
    def write(origin: int, compute_s: float) -> dict[str, Any]:
        return {"write": ["bytes@0"], "transfer": "independent", "compute_before_s": compute_s,
                "selections": [{"grid": [1], "block": [4 * MiB], "origin": [origin]}]}
    return {"iotwin_workload": 1, "name": "t", "ranks": 1, "files": [
        {"name": "t.dat", "mode": "shared", "api": "mpiio", "create": True,
         "datasets": [{"name": "bytes@0", "element_bytes": 1, "dims": [SIZE]}],
         "calls": [write(0, 0.0), write(4 * MiB, 1.0), {"flush": True}]}]}


def test_a_page_cache_does_not_drain_while_its_program_computes() -> None:
    """Held pages wait for the flush, inside the I/O time: the run's ceiling is the disk's
    (100 MB/s). Sent as RPCs fill, the first write drains during the second of computation,
    so the storage is off the I/O path and the ceiling is the copy's (1,000 MB/s)."""
    wl = writes_apart_then_flushed()
    [held] = run(page_cache(True), wl)
    [sent] = run(page_cache(False), wl)
    assert held.ceiling_mbs == pytest.approx(100, rel=1e-6)
    assert held.bound_by["ceiling"] == "OSTs"
    assert sent.ceiling_mbs == pytest.approx(COPY_MBS, rel=1e-6)
