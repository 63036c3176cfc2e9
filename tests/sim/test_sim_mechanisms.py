"""iosim mechanisms on a small synthetic platform where the expected times can be computed."""

from __future__ import annotations

import copy

import pytest
from iotwin.model.platforms import parse_platform
from iotwin.model.sim import simulate
from support.small_platform import MB, MiB, run, small_platform, workload


def test_one_writer_one_ost_takes_size_over_bandwidth_plus_rpc_costs() -> None:
    size = 64 * MiB
    [r] = run(small_platform(rpc_overhead_s=0.01), workload(1, size))
    assert r.phases["write"] == pytest.approx(size / (100 * MB) + 64 * 0.01, rel=1e-6)
    assert r.breakdown["rpcs"] == 64


def test_stripe_mapping_spreads_bytes_over_count_targets_from_the_offset() -> None:
    size = 8 * MiB
    [r] = run(small_platform(), workload(1, size),
              {"lustre": {"stripe_count": 2, "stripe_size": "1MiB", "stripe_offset": 1}})
    assert r.breakdown["bytes_per_target"] == [0, size // 2, size // 2, 0]
    assert r.breakdown["bytes_per_server"] == [size // 2, size // 2]


def test_more_stripes_write_faster_until_the_nic_limits() -> None:
    size = 64 * MiB
    one, four = run(small_platform(), workload(1, size), {"lustre": {"stripe_count": 1}},
                    {"lustre": {"stripe_count": 4}})
    assert four.phases["write"] == pytest.approx(one.phases["write"] / 4, rel=1e-6)
    [nic_bound] = run(small_platform(nic_mbs=150), workload(1, size),
                      {"lustre": {"stripe_count": 4}})
    assert nic_bound.phases["write"] == pytest.approx(size / (150 * MB), rel=1e-6)


def test_nodes_share_the_storage_fabric_max_min_fair_and_the_smallest_ends_first() -> None:
    # node 0 runs 2 ranks, node 1 one: 2B and B bytes through NICs of 150 MB/s into a fabric
    # of 200 MB/s. Both get 100 MB/s until node 1 ends, then node 0 its NIC's 150.
    block = 30 * MiB
    plat = small_platform(nic_mbs=150, storage_fabric_mbs=200, target_mbs=1e6)
    [r] = run(plat, workload(3, block, ranks_per_node=2), {"lustre": {"stripe_count": 4}})
    assert r.phases["write"] == pytest.approx(block / (100 * MB) + block / (150 * MB), rel=1e-6)


def test_concurrent_streams_degrade_an_ost() -> None:
    wl = workload(4, 16 * MiB)
    clean, = run(small_platform(), wl)
    degraded, = run(small_platform(degradation=0.1), wl)
    assert clean.phases["write"] == pytest.approx(64 * MiB / (100 * MB), rel=1e-6)
    assert degraded.phases["write"] == pytest.approx(clean.phases["write"] * 1.3, rel=1e-6)


def test_the_loss_of_concurrent_streams_levels_off_at_the_floor() -> None:
    # One OST written by 4 and by 64 client nodes: B (f + (1 - f) / (1 + d (n - 1))).
    plat = small_platform(degradation=0.1, degradation_floor=0.5)
    for ranks in (4, 64):
        [clean] = run(small_platform(), workload(ranks, MiB))
        [degraded] = run(plat, workload(ranks, MiB))
        factor = 0.5 + 0.5 / (1 + 0.1 * (ranks - 1))
        assert degraded.phases["write"] == pytest.approx(clean.phases["write"] / factor, rel=1e-6)
        assert degraded.phases["write"] < clean.phases["write"] / 0.5


def test_the_ranks_of_a_node_read_the_superblock_through_one_client_cache() -> None:
    # 64 ranks on 4 nodes and on 64 nodes: HDF5's independent superblock reads reach the
    # servers once per node.
    plat = small_platform(metadata_io_s=0.01)
    [shared_nodes] = run(plat, workload(64, MiB, api="hdf5", ranks_per_node=16))
    [own_nodes] = run(plat, workload(64, MiB, api="hdf5", ranks_per_node=1))
    assert shared_nodes.phases["open"] == pytest.approx(4 * 0.01, rel=1e-6)
    assert own_nodes.phases["open"] == pytest.approx(64 * 0.01, rel=1e-6)


def test_writers_sharing_a_stripe_conflict_on_its_lock() -> None:
    unaligned = workload(4, 3 * MiB // 2)
    aligned = workload(4, 2 * MiB)
    plat = small_platform(lock_conflict_s=0.05)
    shared, = run(plat, unaligned)
    clean, = run(plat, aligned)
    assert shared.breakdown["lock_conflicts"] > 0
    assert clean.breakdown["lock_conflicts"] == 0
    assert shared.phases["write"] > shared.breakdown["payload_bytes"] / (100 * MB) + 0.04


def test_collective_buffering_aggregators_follow_cb_nodes_and_cb_config_list() -> None:
    wl = workload(8, 4 * MiB, transfer="collective", ranks_per_node=4)
    enable = {"romio_cb_write": "enable"}
    default, capped, per_node = run(small_platform(), wl, {"mpiio": enable},
                                    {"mpiio": {**enable, "cb_nodes": 1}},
                                    {"mpiio": {**enable, "cb_config_list": "*:*", "cb_nodes": 8}},
                                    write_paths=True)
    assert default.breakdown["aggregators"] == [2]       # *:1 on 2 nodes
    assert capped.breakdown["aggregators"] == [1]
    assert per_node.breakdown["aggregators"] == [8]
    assert default.breakdown["write_paths"] == ["two-phase"]
    # rounds: each aggregator's 16 MiB domain in 4 MiB buffers
    assert default.breakdown["rounds"] == 4
    # packed ranks and contiguous domains: each node aggregates its own data...
    assert default.breakdown["shuffle_bytes"] == 0
    # ...one aggregator receives the other node's 16 MiB over the network
    assert capped.breakdown["shuffle_bytes"] == 16 * MiB


def test_cb_write_disable_gives_independent_writes() -> None:
    wl = workload(8, 4 * MiB, transfer="collective", ranks_per_node=4)
    [r] = run(small_platform(), wl, {"mpiio": {"romio_cb_write": "disable"}}, write_paths=True)
    assert r.breakdown["write_paths"] == ["independent"]
    assert r.breakdown["rounds"] == 0


def test_automatic_cb_skips_buffering_for_non_interleaved_writes() -> None:
    wl = workload(4, MiB, transfer="collective")
    [r] = run(small_platform(), wl, write_paths=True)
    assert r.breakdown["write_paths"] == ["independent"]


def test_smaller_cb_buffer_means_more_rounds() -> None:
    wl = workload(8, 4 * MiB, transfer="collective", ranks_per_node=4)
    big, small = run(small_platform(), wl,
                     {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "8MiB"}},
                     {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "1MiB"}})
    assert (big.breakdown["rounds"], small.breakdown["rounds"]) == (2, 16)  # 16 MiB domains


def test_hdf5_alignment_puts_datasets_on_boundaries() -> None:
    wl = workload(2, 3 * MiB, api="hdf5", datasets=3)
    plain, aligned = run(small_platform(), wl, {},
                         {"hdf5": {"alignment": {"threshold": 0, "boundary": "1MiB"}}})
    assert plain.breakdown["file_bytes"] < 3 * 6 * MiB + 64 * 1024
    assert aligned.breakdown["file_bytes"] % MiB == 0
    assert aligned.breakdown["lock_conflicts"] <= plain.breakdown["lock_conflicts"]


def test_independent_metadata_reads_cost_per_rank() -> None:
    wl = workload(16, MiB, api="hdf5")
    plat = small_platform(metadata_io_s=0.01)
    indep, coll = run(plat, wl, {}, {"hdf5": {"all_coll_metadata_ops": True}})
    assert indep.phases["open"] - coll.phases["open"] == pytest.approx(15 * 0.01, rel=1e-6)


def test_aggregating_ranks_and_rounds_matches_the_unaggregated_simulation() -> None:
    wl = workload(16, 6 * MiB, transfer="collective", ranks_per_node=4)
    cfg = {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "2MiB"},
           "lustre": {"stripe_count": 4}}
    plat = small_platform(degradation=0.05, rpc_overhead_s=0.001, nic_mbs=300)
    [fast] = run(plat, wl, cfg, aggregate=True)
    [slow] = run(plat, wl, cfg, aggregate=False)
    assert fast.breakdown["distinct_phases_simulated"] < fast.breakdown["rounds"] * 2
    assert fast.time_s == pytest.approx(slow.time_s, rel=0.05)
    indep = {"mpiio": {"romio_cb_write": "disable"}, "lustre": {"stripe_count": 4}}
    [fast_i] = run(plat, wl, indep, aggregate=True)
    [slow_i] = run(plat, wl, indep, aggregate=False)
    assert fast_i.time_s == pytest.approx(slow_i.time_s, rel=0.05)


def test_a_bad_config_is_an_error_entry_not_a_failed_batch() -> None:
    bad = {"mpiio": {"romio_cb_write": "enable", "cb_config_list": "nodeA:2"}}
    results = simulate(small_platform(), workload(2, MiB, transfer="collective"), [{}, bad, {}])
    assert [r.ok for r in results] == [True, False, True]
    assert "cb_config_list" in (results[1].error or "")


def test_truth_platform_is_seeded_and_noisy() -> None:
    from iotwin.model.platforms import load_platform
    hopper = load_platform("hopper")
    assert hopper.truth(3).free_parameters() == hopper.truth(3).free_parameters()
    assert hopper.truth(3).free_parameters() != hopper.truth(4).free_parameters()
    truth = hopper.truth(3)
    wl = workload(4, MiB)
    a = simulate(truth, wl, [{}], noise_seed=1)[0]
    b = simulate(truth, wl, [{}], noise_seed=2)[0]
    assert a.time_s != b.time_s
    assert simulate(truth, wl, [{}], noise_seed=1)[0].time_s == a.time_s
    assert copy.deepcopy(hopper).free_parameters() == hopper.free_parameters()


def test_grouping_the_ranks_of_an_ost_on_few_nodes_cuts_its_client_count() -> None:
    # 16 ranks of one stripe each over 4 OSTs: packed, every node writes to every OST
    # (4 clients each); grouped, each node serves one OST alone.
    wl = workload(16, MiB, ranks_per_node=4)
    cfg = {"lustre": {"stripe_count": 4}}
    plat = small_platform(degradation=0.1)
    [packed] = run(plat, wl, cfg, placement="packed")
    [grouped] = run(plat, wl, cfg, placement="target-grouped")
    per_ost = 4 * MiB / (100 * MB)
    assert packed.phases["write"] == pytest.approx(per_ost * 1.3, rel=1e-6)
    assert grouped.phases["write"] == pytest.approx(per_ost, rel=1e-6)


def test_site_defaults_apply_when_the_config_is_silent() -> None:
    from iotwin.model.platforms import load_platform
    hopper = load_platform("hopper")
    wl = workload(48, 4 * MiB, transfer="collective", ranks_per_node=24)
    default, tuned = run(hopper, wl, {}, {"lustre": {"stripe_count": 8}}, write_paths=True)
    assert sum(1 for b in default.breakdown["bytes_per_target"] if b) == 2  # site stripe count
    assert default.breakdown["write_paths"] == ["two-phase"]  # Cray: cb enabled by default
    assert sum(1 for b in tuned.breakdown["bytes_per_target"] if b) == 8


def _collective_call_cost(ranks_per_node: int, oversubscribed_step_s: float = 0.0,
                          api: str = "mpiio") -> float:
    """Time a collective, non-buffered write call adds over the same bytes written independently."""
    plat = small_platform(collective_step_s=0.01)
    if oversubscribed_step_s:
        tree = copy.deepcopy(plat.tree)
        tree["network"]["oversubscribed_step_s"] = {"value": oversubscribed_step_s,
                                                   "assumption": "test"}
        plat = parse_platform(tree, "test")
    indep = run(plat, workload(4, MiB, api=api, transfer="independent",
                               ranks_per_node=ranks_per_node))[0]
    coll = run(plat, workload(4, MiB, api=api, transfer="collective",
                              ranks_per_node=ranks_per_node), write_paths=True)[0]
    assert coll.breakdown["write_paths"] == ["independent"]
    assert coll.breakdown["bytes_per_target"] == indep.breakdown["bytes_per_target"]
    return coll.phases["write"] - indep.phases["write"]


@pytest.mark.parametrize(("api", "steps"), [("mpiio", 2), ("hdf5", 3)])
def test_a_collective_call_costs_collective_steps_even_when_romio_does_not_buffer(
        api: str, steps: int) -> None:
    # ROMIO's allgathers of the start and end offsets; through HDF5 also its allreduce of the
    # I/O mode decision
    cost = _collective_call_cost(ranks_per_node=1, api=api)
    assert cost == pytest.approx(steps * 0.01 * 2)  # a step of a log2(4) collective: 2 x 0.01


def test_ranks_beyond_the_cores_of_a_node_slow_every_collective_step() -> None:
    # Two ranks on a 1-core node: each step waits for the descheduled rank.
    doubled = 2 * _collective_call_cost(ranks_per_node=1)
    assert _collective_call_cost(ranks_per_node=2) == pytest.approx(doubled, rel=1e-6)


def test_an_oversubscribed_step_is_the_platforms_time_slice_where_it_gives_one() -> None:
    # A core a rank: the shared-memory step; two ranks on a 1-core node: the slice, twice.
    sliced = _collective_call_cost(ranks_per_node=1, oversubscribed_step_s=0.5)
    assert sliced == pytest.approx(_collective_call_cost(ranks_per_node=1), rel=1e-6)
    oversubscribed = _collective_call_cost(ranks_per_node=2, oversubscribed_step_s=0.5)
    assert oversubscribed == pytest.approx(2 * sliced * 0.5 / 0.01, rel=1e-6)


def _fill_written(fill_time: str, chunked: bool, fill_value: str = "default"
                  ) -> tuple[int, float]:
    """Bytes beyond the payload and extra write time of an HDF5 dataset with `fill_time`,
    whose application set the fill value `fill_value` (H5Pfill_value_defined)."""
    ranks, block = 4, MiB
    wl = workload(ranks, block, api="hdf5", transfer="independent")
    wl["files"][0]["datasets"][0]["fill_value"] = fill_value
    dataset = {"fill_time": fill_time, **({"chunk_dims": [block]} if chunked else {})}
    never = {"dataset": {**dataset, "fill_time": "never"}}
    filled, bare = run(small_platform(), wl, {"dataset": dataset}, never)
    extra = sum(filled.breakdown["bytes_per_target"]) - sum(bare.breakdown["bytes_per_target"])
    assert sum(bare.breakdown["bytes_per_target"]) == ranks * block
    return extra, filled.phases["write"] - bare.phases["write"]


# H5D__alloc_storage (H5Dint.c) and H5D__chunk_allocate (H5Dchunk.c), HDF5 1.10
@pytest.mark.parametrize(("fill_time", "fill_value", "chunked", "filled"), [
    ("ifset", "default", True, True),
    ("ifset", "user", True, True),
    ("ifset", "undefined", True, False),
    ("alloc", "default", True, True),
    ("ifset", "default", False, False),
    ("ifset", "user", False, True),   # netCDF-4 sets a fill value for every variable
    ("alloc", "default", False, True),
])
def test_datasets_are_filled_at_allocation_as_hdf5_decides(
        fill_time: str, fill_value: str, chunked: bool, filled: bool) -> None:
    extra_bytes, extra_s = _fill_written(fill_time, chunked, fill_value)
    assert extra_bytes == (4 * MiB if filled else 0)
    assert (extra_s > 0) == filled


def test_a_contiguous_fill_is_rank_0s_writes_of_the_fill_buffer() -> None:
    # H5D__contig_fill: rank 0 alone, 1 MiB (max_temp_buf) per MPI_File_write_at, no sieving
    wl = workload(4, 4 * MiB, api="hdf5", transfer="independent")
    wl["files"][0]["datasets"][0]["fill_value"] = "user"
    filled, bare = run(small_platform(), wl, {"dataset": {"fill_time": "ifset"}},
                       {"dataset": {"fill_time": "never"}})
    added = [a - b for a, b in zip(filled.breakdown["posix"]["write_sizes"],
                                   bare.breakdown["posix"]["write_sizes"], strict=True)]
    assert added[5] == sum(added) == 16  # Darshan's 1M-4M bin: 16 MiB in 1 MiB writes
    assert filled.breakdown["posix"]["reads"] == 0


def test_before_a_chunked_fill_every_rank_sets_up_a_fill_buffer_of_one_chunk() -> None:
    # H5D__chunk_allocate -> H5D__fill_init(chunk size): each rank allocates and writes a buffer
    # of one chunk, whether it writes a chunk or not; 2 ranks a core wait for it twice as long.
    wl = workload(4, 4 * MiB, api="hdf5", ranks_per_node=2)

    def fill_s(chunk: int, memcpy_mbs: float) -> float:
        dataset = {"chunk_dims": [chunk]}
        filled, bare = run(small_platform(memcpy_mbs=memcpy_mbs), wl,
                           {"dataset": {**dataset, "fill_time": "ifset"}},
                           {"dataset": {**dataset, "fill_time": "never"}})
        return filled.phases["write"] - bare.phases["write"]

    for chunk in (MiB, 4 * MiB, 16 * MiB):
        setup = fill_s(chunk, 100) - fill_s(chunk, 1e6)
        assert setup == pytest.approx(2 * chunk * (1 / (100 * MB) - 1 / (1e6 * MB)), rel=1e-6)


def test_an_unknown_fill_time_is_an_error_naming_it() -> None:
    config = {"dataset": {"fill_time": "sometimes"}}
    [r] = simulate(small_platform(), workload(2, MiB, api="hdf5"), [config])
    assert not r.ok
    assert "fill_time" in (r.error or "")


def test_the_applications_own_fill_time_counts_unless_a_config_overrides_it() -> None:
    ranks, block = 4, MiB
    wl = workload(ranks, block, api="hdf5")
    dataset = wl["files"][0]["datasets"][0]
    dataset.update(chunk_dims=[block], fill_time="never")   # as a capture records it
    chunked = {"dataset": {"chunk_dims": [block]}}
    own, overridden = run(small_platform(), wl, chunked,
                          {"dataset": {"chunk_dims": [block], "fill_time": "ifset"}})
    assert sum(own.breakdown["bytes_per_target"]) == ranks * block   # never: no fill written
    assert sum(overridden.breakdown["bytes_per_target"]) == 2 * ranks * block


@pytest.mark.parametrize("key", ["fill_time", "fill_value"])
def test_an_unknown_fill_word_in_a_workload_is_an_error_naming_the_dataset(key: str) -> None:
    wl = workload(2, MiB, api="hdf5")
    wl["files"][0]["datasets"][0][key] = "sometimes"
    [r] = simulate(small_platform(), wl, [{}])
    assert not r.ok
    assert f"datasets[0].{key}" in (r.error or "")
