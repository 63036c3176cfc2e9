"""How parallel HDF5 hands an H5Dwrite to MPI-IO (sim-models/src/hdf5_transfer.hpp): a
collective call goes through MPI-IO with a file view, an independent one is one
MPI_File_write_at per contiguous run of the selection, which ROMIO has nothing to sieve."""

from __future__ import annotations

from typing import Any

from test_sim_mechanisms import run, small_platform

N = 8  # each rank an 8^3 block of doubles: 64 runs of 64 bytes


def block3d(api: str, transfer: str, ranks_per_node: int = 1) -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": "b3", "ranks": 8, "ranks_per_node": ranks_per_node,
            "files": [{"name": "b3.h5", "api": api, "datasets": [
                {"name": "/data", "element_bytes": 8, "transfer": transfer,
                 "decomposition": {"grid": [2, 2, 2], "block": [N, N, N]}}]}]}


SIEVING = {"mpiio": {"romio_ds_write": "enable"}, "lustre": {"stripe_count": 4}}


def test_an_independent_h5dwrite_is_one_write_per_run_never_sieved() -> None:
    payload = 8 * N**3 * 8
    [hdf5] = run(small_platform(), block3d("hdf5", "independent"), SIEVING)
    [view] = run(small_platform(), block3d("mpiio", "independent"), SIEVING)
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
    independent, collective = (run(small_platform(lock_conflict_s=0.01), block3d("hdf5", t))[0]
                               for t in ("independent", "collective"))
    assert collective.breakdown["write_paths"] == ["two-phase"]
    assert collective.breakdown["lock_conflicts"] == 0
    assert independent.breakdown["lock_conflicts"] >= 7 * N * N
    assert independent.phases["write"] > collective.phases["write"] + 7 * N * N * 0.01
