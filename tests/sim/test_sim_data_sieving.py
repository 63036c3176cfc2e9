"""ROMIO's data-sieving write in iosim (sim-models/src/mpiio/data_sieving.hpp): a rank reads and
writes windows at its pieces, never the gaps between them, so its traffic grows with the
bytes it writes, not with the file."""

from __future__ import annotations

from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import kernel_workload
from support.small_platform import MiB, run, small_platform, workload

PARTICLES = 32 * MiB  # per rank: 128 MiB per variable


def bluewaters_vpic(ranks: int, one_call: bool) -> dict:
    args = ["--particles", str(PARTICLES), *(["--one-call"] if one_call else [])]
    workload = kernel_workload("vpic-io", ranks, args)
    workload["ranks_per_node"] = 16
    return workload


INDEPENDENT_1GIB_STRIPES = {"lustre": {"stripe_count": 160, "stripe_size": 1024 * MiB},
                            "mpiio": {"romio_cb_write": "disable"}}
SIEVED_1GIB_STRIPES = {**INDEPENDENT_1GIB_STRIPES,
                       "mpiio": {"romio_cb_write": "disable", "romio_ds_write": "enable"}}


def test_one_h5dwrite_multi_of_vpic_at_5120_ranks_moves_its_bytes_not_the_file_per_rank() -> None:
    bluewaters = load_platform("bluewaters")
    [one_call] = simulate(bluewaters, bluewaters_vpic(5120, True), [SIEVED_1GIB_STRIPES])
    [separate] = simulate(bluewaters, bluewaters_vpic(5120, False), [SIEVED_1GIB_STRIPES])
    payload = 5120 * 8 * 4 * PARTICLES  # 5.5 TB
    for result in (one_call, separate):
        assert result.breakdown["payload_bytes"] == payload
        assert sum(result.breakdown["bytes_per_target"]) == payload
    # each rank's 8 pieces are 128 MiB apart-from-each-other runs: sieved in 512 KiB windows,
    # each read then written (read RPCs of 512 KiB, write RPCs of 1 MiB)
    assert one_call.breakdown["sieve_read_bytes"] == payload
    windows = payload // (512 * 1024)
    assert one_call.breakdown["rpcs"] <= windows + payload // MiB + 5120 * 8 * 2
    assert separate.breakdown["sieve_read_bytes"] == 0  # one piece per rank and call
    # reading every byte before writing it costs, but within a small factor: not 2 MB/s
    assert separate.rate_mbs / 4 < one_call.rate_mbs < separate.rate_mbs


def test_cray_mpi_on_lustre_writes_the_pieces_of_one_call_unsieved() -> None:
    # Cray MPICH's default on Lustre is romio_ds_write disable (bluewaters.yaml): the one
    # H5Dwrite_multi of 8 datasets writes each rank's 8 pieces as they are, as 8 calls do,
    # and saves 7 collective calls; with collective buffering on it is slower than both.
    bluewaters = load_platform("bluewaters")
    workload = bluewaters_vpic(1024, True)
    one_call, sieved = simulate(bluewaters, workload,
                                [INDEPENDENT_1GIB_STRIPES, SIEVED_1GIB_STRIPES])
    [separate] = simulate(bluewaters, bluewaters_vpic(1024, False), [INDEPENDENT_1GIB_STRIPES])
    [buffered] = simulate(bluewaters, bluewaters_vpic(1024, False), [
        {**INDEPENDENT_1GIB_STRIPES, "mpiio": {"romio_cb_write": "enable"}}])
    assert one_call.breakdown["sieve_read_bytes"] == 0
    for result in (one_call, separate):
        assert result.breakdown["posix"]["writes"] == 1024 * 8
        assert sum(result.breakdown["bytes_per_target"]) == result.breakdown["payload_bytes"]
    assert sieved.breakdown["sieve_read_bytes"] == sieved.breakdown["payload_bytes"]
    assert buffered.rate_mbs < separate.rate_mbs < one_call.rate_mbs
    assert sieved.rate_mbs < one_call.rate_mbs


def test_the_window_moves_to_the_next_piece_and_skips_the_gap() -> None:
    # 2 datasets of 4 KiB per rank written in one call by 64 ranks: each rank's two pieces
    # are 256 KiB apart, farther than a 64 KiB window and nearer than a 4 MiB one
    workload = kernel_workload("vpic-io", 64, ["--particles", "1024", "--one-call"])
    workload["files"][0]["datasets"] = workload["files"][0]["datasets"][:2]
    config = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "enable"},
              "lustre": {"stripe_count": 4, "stripe_size": MiB}}
    small, large = simulate(load_platform("hopper"), workload, [
        {**config, "mpiio": {**config["mpiio"], "ind_wr_buffer_size": 64 * 1024}},
        {**config, "mpiio": {**config["mpiio"], "ind_wr_buffer_size": 4 * MiB}}])
    # a whole window at the first piece (ROMIO reads and writes back the buffer's size),
    # the gap skipped, and a window cut at the end of the access at the second
    assert small.breakdown["sieve_read_bytes"] == 64 * (64 * 1024 + 4096)
    # a window big enough to reach the next piece reads the gap (the other ranks' pieces and
    # the second dataset's header before it): one window per rank
    assert 64 * (256 + 4) * 1024 < large.breakdown["sieve_read_bytes"] <= 64 * (256 + 12) * 1024
    for result in (small, large):  # every window read is written back
        written = sum(result.breakdown["bytes_per_target"])
        assert written == result.breakdown["sieve_read_bytes"]


def test_posix_calls_count_each_window_read_then_written() -> None:
    # the 64 KiB windows above: per rank, one whole window and one cut at the second piece
    workload = kernel_workload("vpic-io", 64, ["--particles", "1024", "--one-call"])
    workload["files"][0]["datasets"] = workload["files"][0]["datasets"][:2]
    config = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "enable",
                        "ind_wr_buffer_size": 64 * 1024},
              "lustre": {"stripe_count": 4, "stripe_size": MiB}}
    [result] = simulate(load_platform("hopper"), workload, [config])
    calls = result.breakdown["posix"]
    assert calls["reads"] == calls["writes"] == 64 * 2
    assert calls["read_bytes"] == result.breakdown["sieve_read_bytes"]
    # Darshan's bins: a 64 KiB window and a 4 KiB one per rank
    assert calls["write_sizes"][3] == 64 and calls["write_sizes"][2] == 64
    assert sum(calls["write_sizes"]) == calls["writes"]


def test_a_ranks_adjacent_whole_chunks_are_one_contiguous_write_not_sieved() -> None:
    # 2 ranks x 4 whole chunks of 1 MiB, one collective H5Dwrite that ROMIO does not buffer:
    # HDF5's linked-chunk file type of a rank's adjacent chunks is contiguous (MPICH marks a
    # struct whose size is its extent so), and ROMIO writes it whole; aligned to 2 MiB, the
    # chunks leave gaps and the same call is sieved
    wl = workload(2, 4 * MiB, api="hdf5", transfer="collective")
    wl["files"][0]["datasets"][0].update(chunk_dims=[MiB], fill_time="never")
    independent = {"mpiio": {"romio_cb_write": "disable", "romio_ds_write": "enable"}}
    aligned = {**independent, "hdf5": {"alignment": {"threshold": 1, "boundary": 2 * MiB}}}
    adjacent, gapped = run(small_platform(), wl, independent, aligned)
    payload = 8 * MiB
    assert adjacent.breakdown["sieve_read_bytes"] == 0
    assert adjacent.breakdown["posix"]["write_sizes"][6] == 2  # one 4 MiB write per rank
    assert sum(adjacent.breakdown["bytes_per_target"]) == payload
    # the gaps are wider than a 512 KiB window: each chunk read in windows, then written
    assert gapped.breakdown["sieve_read_bytes"] == payload
    assert gapped.time_s > adjacent.time_s
