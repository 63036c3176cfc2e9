"""Where the repository and its test programs are, and the programs not written for iotwin
that several tests run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from iotwin.core import paths

REPO_ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = REPO_ROOT / "tests" / "programs"

H5PY_MPI = Path(sys.prefix) / "h5py-mpi"   # `make h5py-mpi` installs the parallel h5py here


def ph5example(folder: Path) -> list[str]:
    del folder   # writes ./ParaEg0.h5 and ./ParaEg1.h5 where it runs; -c: keeps them
    return [str(paths.build_dir() / "tests" / "programs" / "ph5example"), "-c"]


def h5py_script(folder: Path) -> list[str]:
    return [sys.executable, str(PROGRAMS / "h5py_field.py"), str(folder / "field.h5"),
            "--steps", "3", "--compute-s", "0.2"]


@pytest.fixture
def parallel_h5py(monkeypatch: pytest.MonkeyPatch) -> None:
    if not (H5PY_MPI / "h5py").is_dir():
        pytest.fail(f"no parallel h5py in {H5PY_MPI}: run `make h5py-mpi`")
    monkeypatch.setenv("PYTHONPATH", str(H5PY_MPI))
