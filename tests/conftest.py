"""Shared test fixtures. The compiled parts must be built (`make build`) before pytest runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.core import paths


@pytest.fixture(scope="session")
def build_dir() -> Path:
    return paths.build_dir()


@pytest.fixture
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory on the real disk for files the kernels write."""
    return tmp_path_factory.mktemp("scratch")


def with_default_sigint() -> None:
    """Run in a child before exec: a shell that starts the suite in the background leaves
    SIGINT ignored, and Python keeps an ignored SIGINT, so Ctrl-C would never reach it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
