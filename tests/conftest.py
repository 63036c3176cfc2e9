"""Shared test fixtures. The compiled parts must be built (`make build`) before pytest runs.

The folders mirror the code: tests/<package>/ for tuner/iotwin/<package>/, tests/sim/ for the
simulator, tests/interposer/ and tests/kernels/ for the C parts, tests/tools/ for the
repository's checks; tests/support/ holds what several of them share.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from iotwin.core import paths

sys.path.insert(0, str(Path(__file__).parent))  # so that every folder imports support.*

# their fixtures (parallel_h5py, the Slurm test cluster), how xdist shares the tests and
# --cpu-times, everywhere
pytest_plugins = ["support.programs", "support.slurm_cluster", "support.worker_groups",
                  "support.cpu_times"]


@pytest.fixture(scope="session")
def build_dir() -> Path:
    return paths.build_dir()


@pytest.fixture
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory on the real disk for files the kernels write."""
    return tmp_path_factory.mktemp("scratch")
