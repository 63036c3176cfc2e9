"""The MPI flavours iotwin builds its interposer and kernels for (data/mpi-flavours.yaml):
their names, launchers and build folders. Which flavour a program runs under is found by
:mod:`iotwin.executors.mpi_flavour`, which starts programs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import check_keys, read_yaml

#: the flavour of a workload that does not say, of the kernels, and of a program that loads
#: neither HDF5 nor an MPI library of a flavour
DEFAULT_MPI = "mpich"


@dataclass(frozen=True)
class Flavour:
    name: str
    title: str  # as people write it: "Open MPI"
    hdf5_library: str  # the start of the HDF5 library's file name: libhdf5_openmpi
    mpi_library: str  # the start of its MPI library's file name: libmpi.so
    launcher: str  # a launcher of launchers.yaml
    build: str  # its interposer and kernels under the build folder ("." for MPICH)
    package: str  # the Debian package of its parallel HDF5

    def interposer(self) -> Path:
        return _built(lambda: paths.interposer_library(self.build), self)

    def kernel(self, name: str) -> Path:
        return _built(lambda: paths.kernel_binary(name, self.build), self)


def _built(find: Callable[[], Path], flavour: Flavour) -> Path:
    try:
        return find()
    except paths.MissingBuildError as error:
        raise UserError(f"{error} (the {flavour.title} build needs {flavour.package})") from None


@cache
def flavours() -> dict[str, Flavour]:
    source = paths.data_dir() / "mpi-flavours.yaml"
    data = read_yaml(source, "MPI flavour list")
    fields = ("title", "hdf5_library", "mpi_library", "launcher", "build", "package")
    return {name: Flavour(name, **check_keys(entry, fields, str(source), name, required=fields))
            for name, entry in data.items()}


def select_flavour(name: str) -> Flavour:
    if name not in flavours():
        raise UserError(f"unknown MPI flavour {name!r}: expected {' or '.join(flavours())}")
    return flavours()[name]
