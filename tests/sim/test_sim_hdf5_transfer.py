"""How parallel HDF5 hands an H5Dwrite to MPI-IO (sim-models/src/iolib/hdf5_transfer.hpp): a
collective call goes through MPI-IO with a file view, an independent one is one
MPI_File_write_at per contiguous run of the selection, which ROMIO has nothing to sieve."""

from __future__ import annotations

from typing import Any

from iotwin.model.platforms import load_platform
from support.small_platform import MiB, run, small_platform

N = 8  # each rank an 8^3 block of doubles: 64 runs of 64 bytes


def block3d(api: str, transfer: str, ranks_per_node: int = 1, n: int = N) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": "b3", "ranks": 8, "ranks_per_node": ranks_per_node,
            "files": [{"name": "b3.h5", "api": api, "datasets": [
                {"name": "/data", "element_bytes": 8, "transfer": transfer,
                 "decomposition": {"grid": [2, 2, 2], "block": [n, n, n]}}]}]}


SIEVING = {"mpiio": {"romio_ds_write": "enable"}, "lustre": {"stripe_count": 4}}


def test_an_independent_h5dwrite_is_one_write_per_run_never_sieved() -> None:
    payload = 8 * N**3 * 8
    [hdf5] = run(small_platform(), block3d("hdf5", "independent"), SIEVING, write_paths=True)
    [view] = run(small_platform(), block3d("mpiio", "independent"), SIEVING, write_paths=True)
    assert hdf5.breakdown["write_paths"] == view.breakdown["write_paths"] == ["independent"]
    # HDF5: every rank's N*N rows, each its own write, nothing read
    assert hdf5.breakdown["posix"]["writes"] == 8 * N * N
    assert hdf5.breakdown["posix"]["write_sizes"][0] == 8 * N * N  # Darshan's 0-100 B bin
    assert hdf5.breakdown["sieve_read_bytes"] == 0 == hdf5.breakdown["posix"]["reads"]
    assert sum(hdf5.breakdown["bytes_per_target"]) == payload
    # the same selection as an MPI-IO file view: ROMIO sieves each rank's extent
    assert view.breakdown["sieve_read_bytes"] > 0
    assert view.breakdown["posix"]["writes"] < hdf5.breakdown["posix"]["writes"]


def test_every_run_written_alone_by_another_node_revokes_the_stripes_lock() -> None:
    # The 32 KiB array lies in one 1 MiB stripe: 8 nodes writing their 64 rows each take the
    # lock from one another; under collective buffering one aggregator writes it all.
    independent, collective = (run(small_platform(lock_conflict_s=0.01), block3d("hdf5", t),
                                                   write_paths=True)[0]
                               for t in ("independent", "collective"))
    assert collective.breakdown["write_paths"] == ["two-phase"]
    assert collective.breakdown["lock_conflicts"] == 0
    assert independent.breakdown["lock_conflicts"] >= 7 * N * N
    # the writers wait for each revocation (extent_locks.hpp), all of them on one object
    assert independent.time_by_mechanism["extent-lock revocation waits"] >= 7 * N * N * 0.01
    assert independent.phases["write"] > collective.phases["write"]


def test_an_unaligned_data_start_shares_lock_units_that_alignment_separates() -> None:
    # 8 ranks on 8 nodes, 1 MiB each, written independently: HDF5 puts the data after its
    # metadata (2 KiB in), so each rank's block straddles two 1 MiB stripes and shares them
    # with its neighbours; aligned to the stripe, the blocks own their stripes.
    workload = {"iotwin_workload": 1, "name": "v", "ranks": 8, "ranks_per_node": 1,
                "files": [{"name": "v.h5", "api": "hdf5", "datasets": [
                    {"name": "/x", "element_bytes": 8, "transfer": "independent",
                     "decomposition": {"grid": [8], "block": [MiB // 8]}}]}]}
    striped = {"lustre": {"stripe_count": 4, "stripe_size": MiB}}
    aligned = {**striped, "hdf5": {"alignment": {"threshold": 1, "boundary": MiB}}}
    unaligned_run, aligned_run = run(small_platform(), workload, striped, aligned)
    assert unaligned_run.breakdown["lock_conflicts"] == 7  # one shared stripe per boundary
    assert aligned_run.breakdown["lock_conflicts"] == 0


def test_two_phase_domains_on_stripes_make_the_unaligned_start_of_a_3d_block_harmless() -> None:
    # ROMIO's Lustre driver deals whole stripes to aggregators (stripe i to aggregator
    # i mod n): whatever offset HDF5 starts the data at, no stripe has two writers.
    # 2 MiB of 32^3 blocks over 32 stripes of 64 KiB, 4 aggregators on 4 nodes.
    platform = load_platform("archer")
    workload = block3d("hdf5", "collective", ranks_per_node=2, n=32)
    striped = {"lustre": {"stripe_count": 4, "stripe_size": 64 * 1024}}
    aligned = {**striped, "hdf5": {"alignment": {"threshold": 1, "boundary": 64 * 1024}}}
    unaligned_run, aligned_run = run(platform, workload, striped, aligned,
                                     write_paths=True)
    for result in (unaligned_run, aligned_run):
        assert result.breakdown["write_paths"] == ["two-phase"]
        assert result.breakdown["aggregators"] == [4]
        assert result.breakdown["lock_conflicts"] == 0
    # the same call without collective buffering: every row its own writer's
    [rows] = run(platform, block3d("hdf5", "independent", ranks_per_node=2, n=32), striped)
    assert rows.breakdown["lock_conflicts"] > 0
