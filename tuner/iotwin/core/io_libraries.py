"""The I/O libraries a workload file's ``api`` names (data/io-libraries.yaml): the model iosim
simulates each with, the layers its writes go through, which decide the config blocks
and the search parameters that apply to its files, and the api its captured files take."""

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
    captured_as: str  # the api of its files' captured form


@cache
def io_libraries() -> dict[str, IoLibrary]:
    path = paths.data_dir() / "io-libraries.yaml"
    data = read_yaml(path, "I/O library table")
    if not isinstance(data, dict):
        raise UserError(f"{path}: top level: expected a mapping of workload APIs")
    libraries = {str(api): _library(str(api), row, str(path)) for api, row in data.items()}
    for library in libraries.values():
        if library.captured_as not in libraries:
            raise UserError(f"{path}: {library.api}.captured_as: {library.captured_as!r} is "
                            f"not an api of the table ({', '.join(libraries)})")
    return libraries


def _library(api: str, row: object, source: str) -> IoLibrary:
    fields = check_keys(row, ("model", "through", "captured_as"), source, api,
                        required=("model", "through"))
    through = fields["through"]
    if not isinstance(through, list) or any(layer not in LAYERS for layer in through):
        raise UserError(f"{source}: {api}.through: expected a list of {', '.join(LAYERS)}")
    return IoLibrary(api, str(fields["model"]), tuple(through),
                     str(fields.get("captured_as", api)))


@cache
def apis_through(layer: str) -> frozenset[str]:
    """The APIs whose files go through ``layer`` (one of LAYERS); kept, as the table it reads:
    a space asks it of every parameter in every context."""
    return frozenset(api for api, library in io_libraries().items() if layer in library.through)
