"""Where iotwin's built parts and data live.

The package is installed editable from the repository (``pip install -e tuner``), so the
repository root is found from this file; ``IOTWIN_ROOT`` and ``IOTWIN_BUILD`` override it.
"""

from __future__ import annotations

import os
from pathlib import Path

from iotwin.core.errors import UserError

_PACKAGE = Path(__file__).resolve().parents[1]  # tuner/iotwin
#: the kernels of kernels/, built in the build folder's kernels/
KERNELS = ("vpic-io", "vorpal-io", "gcrm-io", "block3d-io", "replay")


class MissingBuildError(RuntimeError):
    """A compiled part of iotwin (kernel, interposer, simulator) is not built."""


def repo_root() -> Path:
    env = os.environ.get("IOTWIN_ROOT")
    return Path(env) if env else Path(__file__).resolve().parents[3]


def build_dir() -> Path:
    env = os.environ.get("IOTWIN_BUILD")
    return Path(env) if env else repo_root() / "build"


def built(relative: str) -> Path:
    """Path of a built artefact, e.g. ``built("kernels/vpic-io")``; error if it is missing."""
    path = build_dir() / relative
    if not path.exists():
        raise MissingBuildError(f"{path} is not built: run `make build` in {repo_root()}")
    return path


def interposer_library(flavour_build: str = ".") -> Path:
    """The interposer built for an MPI flavour (its ``build`` folder in mpi-flavours.yaml;
    ".": MPICH's)."""
    return built(f"{flavour_build}/interposer/libiotwin_h5.so")


def kernel_binary(name: str, flavour_build: str = ".") -> Path:
    """A kernel of KERNELS as built for an MPI flavour; UserError for any other name (a name
    is never a path: ``../../../bin/sh`` is no kernel, whatever it finds)."""
    if name not in KERNELS:
        raise UserError(f"unknown kernel {name!r}: expected one of {', '.join(KERNELS)}")
    return built(f"{flavour_build}/kernels/{name}")


def simulator_binary() -> Path:
    return built("sim-models/iosim")


def platforms_dir() -> Path:
    return repo_root() / "sim-models" / "platforms"


def spaces_dir() -> Path:
    return _PACKAGE / "space" / "spaces"


def data_dir() -> Path:
    return _PACKAGE / "data"
