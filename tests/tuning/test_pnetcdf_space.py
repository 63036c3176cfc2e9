"""A PnetCDF program captured by the interposer (tests/programs/pnetcdf_block.c, Open MPI,
which Debian's PnetCDF is built on) is searched over PnetCDF's own settings, as its described
form is: its capture is MPI-IO regions (`api: mpiio`) that name the library the program called
(`library: pnetcdf`), and the space of its tune holds the alignment hints iosim models and the
interposer applies and reads back; a real tune over them runs, every search run's hint read
back from the open file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.executors import launch
from iotwin.executors.capture_run import records_in
from iotwin.space.parameters import SpaceContext, load_space
from iotwin.store.database import Store
from iotwin.workloads.from_capture import workload_from_capture
from iotwin.workloads.partial_writes import program_context
from support.programs import REPO_ROOT

pytestmark = pytest.mark.slow

PROGRAM = paths.built("openmpi/tests/programs/pnetcdf_block")   # built where PnetCDF is
ARGS = ["out.nc", "4", "2"]   # a block edge of 4, two variables
PNETCDF_KEYS = {"pnetcdf.nc_header_align_size", "pnetcdf.nc_var_align_size"}


def captured_workload(folder: Path) -> dict:
    records = folder / "capture.jsonl"
    env = {"LD_PRELOAD": str(paths.interposer_library("openmpi")),
           "IOTWIN_CAPTURE": str(records)}
    done = launch.run_mpi(2, [PROGRAM, *ARGS], env=env, cwd=folder, timeout=180,
                          using=launch.launcher("openmpi"))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    return dict(workload_from_capture(records_in(folder, lines), "pnetcdf_block", "test"))


@pytest.mark.parametrize(("space", "filesystem"), [("local", "ufs"), ("table3", "lustre")])
def test_a_captured_pnetcdf_programs_space_holds_pnetcdfs_keys(
        scratch: Path, space: str, filesystem: str) -> None:
    workload = captured_workload(scratch)
    [session] = workload["files"]
    assert (session["api"], session["library"]) == ("mpiio", "pnetcdf")
    context = program_context(SpaceContext(filesystem, ranks=2, max_stripe_count=8), workload)
    assert context.apis == ("pnetcdf",)
    keys = {key for gene in load_space(space).bind(context).genes for key in gene.keys}
    assert keys >= PNETCDF_KEYS
    assert "mpiio.cb_nodes" in keys   # PnetCDF writes through MPI-IO
    assert not {key for key in keys if key.split(".")[0] in ("hdf5", "dataset")}


def test_a_tune_of_a_pnetcdf_program_runs_over_pnetcdfs_keys(scratch: Path) -> None:
    """sim-screened captures the program from its first run, then screens the space its
    capture binds in iosim: the fixed header alignment is a parameter of it (a parameter outside the
    bound space would set no key), so every search run sets it, and PnetCDF reads it back."""
    store = scratch / "s.db"
    done = subprocess.run(
        [sys.executable, "-m", "iotwin", "tune", "--ranks", "2", "--strategy", "sim-screened",
         "--real-budget", "3", "--confirm", "0", "--summary-repeat", "0",
         "--fix", "nc_header_align_size=1MiB", "--store", str(store), "--json",
         "--output", str(scratch / "t.yaml"), "--", str(PROGRAM), *ARGS],
        cwd=scratch, capture_output=True, text=True, timeout=900,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT / "tuner")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs_used"] == 3
    with Store(store) as db:
        searched = [row for row in db.evaluations(source="real")
                    if "measured_index" in row.details]
        simulated = db.evaluations(source="sim")
    # the captured workload, `library` and all, simulated in the screening
    assert simulated and all(row.ok for row in simulated), simulated[0].error
    assert len(searched) == 3 and all(row.ok for row in searched)
    for row in searched:
        assert row.config["pnetcdf"]["nc_header_align_size"] == 2**20
        [effective] = [e for e in row.effective if e.get("api") == "pnetcdf"]
        assert effective["effective"]["hints"]["nc_header_align_size"] == str(2**20)
