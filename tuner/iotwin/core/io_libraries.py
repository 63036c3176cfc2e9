"""The I/O libraries a workload file's ``api`` names (data/io-libraries.yaml): the model iosim
simulates each with and the layers its writes go through, which decide the config blocks
and the search parameters that apply to its files."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import check_keys, read_yaml

#: the layers a library's writes may go through
LAYERS = ("hdf5", "mpiio")


@dataclass(frozen=True)
class IoLibrary:
    api: str
    model: str  # iosim's implementation (sim-models/src/iolib/)
    through: tuple[str, ...]  # of LAYERS


@cache
def io_libraries() -> dict[str, IoLibrary]:
    path = paths.data_dir() / "io-libraries.yaml"
    data = read_yaml(path, "I/O library table")
    if not isinstance(data, dict):
        raise UserError(f"{path}: top level: expected a mapping of workload APIs")
    return {str(api): _library(str(api), row, str(path)) for api, row in data.items()}


def _library(api: str, row: object, source: str) -> IoLibrary:
    fields = check_keys(row, ("model", "through"), source, api, required=("model", "through"))
    through = fields["through"]
    if not isinstance(through, list) or any(layer not in LAYERS for layer in through):
        raise UserError(f"{source}: {api}.through: expected a list of {', '.join(LAYERS)}")
    return IoLibrary(api, str(fields["model"]), tuple(through))


def apis_through(layer: str) -> frozenset[str]:
    """The APIs whose files go through ``layer`` (one of LAYERS)."""
    return frozenset(api for api, library in io_libraries().items() if layer in library.through)
