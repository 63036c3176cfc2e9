"""A program's rate comes from the interposer: its time inside HDF5 calls is its I/O time, the
computation between its file sessions is reported apart and mpiexec's wall time (launch
included) beside it, never used as the I/O time (tests/executors/test_io_time.py: computation
inside one session)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor

H5PY_MPI = Path(sys.prefix) / "h5py-mpi"  # `make h5py-mpi`
COMPUTE_S = 1.5

TWO_DUMPS = f"""
import time
import h5py
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
for dump in range(2):
    if dump:
        time.sleep({COMPUTE_S})  # the simulation computes between its dumps
    with h5py.File(f"dump{{dump}}.h5", "w", driver="mpio", comm=comm) as f:
        d = f.create_dataset("field", (comm.size, 262144), dtype="f8")
        with d.collective:
            d[comm.rank] = np.full(262144, comm.rank, dtype="f8")
"""


def test_a_program_is_timed_by_its_hdf5_io_not_by_mpiexec(scratch: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    if not (H5PY_MPI / "h5py").is_dir():
        pytest.fail(f"no parallel h5py in {H5PY_MPI}: run `make h5py-mpi`")
    monkeypatch.setenv("PYTHONPATH", str(H5PY_MPI))
    script = scratch / "two_dumps.py"
    script.write_text(TWO_DUMPS)
    result = LocalExecutor(scratch_root=scratch / "runs", workdir=scratch).run_once(
        Target(ranks=2, command=(sys.executable, str(script))), {})
    assert result.status == "ok", result.error
    assert result.bytes == 2 * 2 * 262144 * 8  # two files of 2 ranks x 2 MiB
    phases = result.phases
    assert phases["compute_s"] >= COMPUTE_S  # the sleep between the sessions, apart
    assert phases["compute_s"] < COMPUTE_S + 1.0
    # the wall time holds the launch, the interpreter's start and the compute on top of the I/O
    assert phases["wall_s"] > phases["io_s"] + phases["compute_s"]
    assert result.total_s == phases["io_s"]
    assert result.rate_mbs == pytest.approx(result.bytes / 1e6 / phases["io_s"])


def test_a_program_that_writes_no_hdf5_is_a_failed_run_saying_why(scratch: Path) -> None:
    result = LocalExecutor(scratch_root=scratch / "runs", workdir=scratch).run_once(
        Target(ranks=1, command=("true",)), {})
    assert result.status == "failed"
    assert "no HDF5, MPI-IO or POSIX data file closed" in (result.error or "")
