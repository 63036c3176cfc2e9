"""The MPI flavour of a program started through a wrapper (env, sh -c, a shell script), and a
program that links HDF5 statically, which the interposer cannot reach: refused before anything
runs or is stored."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.run_records import Target
from iotwin.executors.mpi_flavour import choose_flavour
from iotwin.store.database import Store
from support.programs import PROGRAMS

APP = str(paths.build_dir() / "tests" / "programs" / "case_app")  # MPICH's parallel HDF5
NO_PYTHONPATH = {"PYTHONPATH": ""}


def why(*command: str) -> str:
    flavour, reason = choose_flavour(Target(2, command=command), NO_PYTHONPATH)
    return f"{flavour.name}: {reason}"


def script(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


def test_wrappers_are_followed_to_the_program_they_start(tmp_path: Path) -> None:
    assert why("env", "OMP_NUM_THREADS=1", APP).startswith("mpich: loads libhdf5_mpich")
    assert why("sh", "-c", f"ulimit -c 0; exec {APP} input").endswith("(through sh -c)")
    assert why("bash", "-c", f"X=1 {APP}").startswith("mpich: loads libhdf5_mpich")
    wrapper = script(tmp_path, "run.sh", f"#!/bin/bash\n# the site's wrapper\n"
                                         f"export A=1\ncd /tmp && exec nice {APP} \"$@\"\n")
    assert why(wrapper).startswith("mpich: loads libhdf5_mpich")
    assert why("bash", wrapper, "x").startswith("mpich: loads libhdf5_mpich")
    bare = script(tmp_path, "bare", f"{APP}\n")  # no #!: the shell runs it
    assert f"(through the script {bare})" in why(bare)
    nested = script(tmp_path, "outer.sh", f"#!/bin/sh\nenv B=2 {wrapper}\n")
    assert why("sh", "-c", f"{nested} && echo done").endswith(
        f"(through sh -c, the script {nested}, env, the script {wrapper})")
    assert why("sh", "-c", "echo $HOME; true") == "mpich: loads no HDF5: the default"


def test_env_gives_the_program_its_environment() -> None:
    h5py_mpi = Path(sys.prefix) / "h5py-mpi"
    if not (h5py_mpi / "h5py").is_dir():
        pytest.fail(f"no parallel h5py in {h5py_mpi}: run `make h5py-mpi`")
    found = why("env", f"PYTHONPATH={h5py_mpi}", sys.executable,
                str(PROGRAMS / "h5py_field.py"), "f.h5")
    assert found.startswith("mpich: loads libhdf5_mpich") and found.endswith("(through env)")


@pytest.fixture(scope="module")
def static_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/programs/case_app.c linked against Debian's static MPICH HDF5 (h5pcc -noshlib)."""
    binary = tmp_path_factory.mktemp("static") / "case_app_static"
    subprocess.run(["h5pcc.mpich", "-noshlib", "-o", str(binary), str(PROGRAMS / "case_app.c")],
                   check=True, capture_output=True, cwd=binary.parent)
    return binary


def test_a_static_hdf5_is_named_with_the_rebuild_it_needs(static_program: Path,
                                                          tmp_path: Path) -> None:
    message = (f"{static_program}: links HDF5 statically: rebuild it with -shlib (h5pcc -shlib, "
               f"h5pfc -shlib), the interposer can't reach a static HDF5")
    with pytest.raises(UserError) as refused:
        choose_flavour(Target(2, command=(str(static_program),)))
    assert str(refused.value) == message
    wrapper = script(tmp_path, "run.sh", f"#!/bin/sh\nexec {static_program}\n")
    with pytest.raises(UserError, match="links HDF5 statically"):
        choose_flavour(Target(2, command=(wrapper,)))


@pytest.mark.parametrize("command", ["run", "tune"])
def test_a_static_program_is_refused_before_a_run_and_leaves_no_campaign(
        command: str, static_program: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    done = subprocess.run([sys.executable, "-m", "iotwin", command, "--ranks", "2", "--store",
                           str(store), "--", str(static_program)], cwd=tmp_path, text=True,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 2
    assert "links HDF5 statically: rebuild it with -shlib" in done.stderr
    assert "rep " not in done.stderr   # nothing ran
    if store.exists():
        with Store(store) as db:
            assert db.campaigns() == []


@pytest.mark.parametrize("command", [["validate", "local", "--suite"], ["landscape", "measure"]])
def test_a_static_programs_suite_is_refused_before_its_campaign_is_made(
        command: list[str], static_program: Path, tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"command: [{static_program}]\nranks: 2\nsamples: 3\n")
    store = tmp_path / "s.db"
    done = subprocess.run([sys.executable, "-m", "iotwin", *command, str(suite), "--store",
                           str(store)], cwd=tmp_path, text=True, capture_output=True,
                          timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    assert "links HDF5 statically: rebuild it with -shlib" in done.stderr
    if store.exists():
        with Store(store) as db:
            assert db.campaigns() == []
