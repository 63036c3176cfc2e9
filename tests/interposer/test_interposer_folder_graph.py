"""The interposer's folders call one another one way, as tuner/tools/import_cycles.py checks
for the Python packages: the graph is read from the built objects' symbols (`nm` of each
object file of the library, and of each member of the project's static libraries it links
that the library holds), folder A -> folder B when an object of A uses a symbol an object of
B defines; a cycle between folders fails.

    python tests/interposer/test_interposer_folder_graph.py [BUILD_DIR]

prints the graph of a build tree (the MPICH library's objects) and its cycles."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from iotwin.core import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tuner" / "tools"))
from import_cycles import cycles

FLAVOURS = {"mpich": "iotwin_h5", "openmpi": "iotwin_h5_openmpi"}   # the library's target


def link_inputs(build: Path, target: str) -> tuple[Path, list[Path], list[Path]]:
    """The library, its objects and the archives its link command names (the objects folder
    may hold objects of sources the library no longer has)."""
    linked_in = build / "interposer"   # where CMake runs the link
    words = shlex.split((linked_in / "CMakeFiles" / f"{target}.dir" / "link.txt").read_text())
    output = words[words.index("-o") + 1]
    paths = [(linked_in / word).resolve() for word in words]
    return ((linked_in / output).resolve(), [path for path in paths if path.suffix == ".o"],
            [path for path in paths if path.suffix == ".a" and path.is_relative_to(build)])


def folder_of(path: Path, build: Path) -> str:
    """An object of `src/core/` -> "core"; another source folder (a static library's) by its
    path from the repository (CMake writes `..` as `__`)."""
    parts = path.relative_to(build).parent.parts
    if "src" in parts:
        return "/".join(parts[parts.index("src") + 1:])
    if "__" in parts:   # a source of another folder compiled into the library
        return "/".join(parts[len(parts) - parts[::-1].index("__"):])
    return "/".join(part for part in parts if part != "openmpi")


def nm(path: Path, *options: str) -> list[list[str]]:
    out = subprocess.run(["nm", "-P", *options, str(path)], check=True, capture_output=True,
                         text=True).stdout
    return [line.split() for line in out.splitlines()]


def symbols(lines: list[list[str]]) -> tuple[set[str], set[str]]:
    """Global symbols defined and used in `nm -P` lines."""
    defined, used = set(), set()
    for fields in lines:
        if len(fields) >= 2:
            (used if fields[1] in "Uw" else defined).add(fields[0])
    return defined, used


def members(archive: Path, held: set[str]) -> Iterator[list[list[str]]]:
    """The `nm -P` lines of each member of the archive the library holds (the linker takes
    only the members it needs: those that define a symbol of the library)."""
    lines: dict[str, list[list[str]]] = {}
    for fields in nm(archive, "-g", "-A"):
        member = fields[0].rstrip(":").split("[")[-1].rstrip("]")
        lines.setdefault(member, []).append(fields[1:])
    for member_lines in lines.values():
        defined, _ = symbols(member_lines)
        if defined & held:
            yield member_lines


def folder_symbols(build: Path, target: str) -> dict[str, tuple[set[str], set[str]]]:
    """Folder -> the global symbols its objects define and those they use."""
    build = build.resolve()
    library, objects, archives = link_inputs(build, target)
    held = {fields[0] for fields in nm(library) if len(fields) >= 2 and fields[1] != "U"}
    units = [(folder_of(obj, build), nm(obj, "-g")) for obj in objects]
    units += [(folder_of(archive, build), lines) for archive in archives
              for lines in members(archive, held)]
    folders: dict[str, tuple[set[str], set[str]]] = {}
    for folder, lines in units:
        defined, used = symbols(lines)
        folders.setdefault(folder, (set(), set()))[0].update(defined)
        folders[folder][1].update(used)
    return folders


def folder_graph(build: Path, target: str = FLAVOURS["mpich"]) -> dict[str, set[str]]:
    """Folder -> the folders whose symbols it uses."""
    folders = folder_symbols(build, target)
    definer = {name: folder for folder, (defined, _) in folders.items() for name in defined}
    return {folder: {definer[name] for name in used if name in definer} - {folder}
            for folder, (_, used) in folders.items()}


def describe(graph: dict[str, set[str]]) -> str:
    lines = [f"{folder} -> {', '.join(sorted(graph[folder])) or '(nothing)'}"
             for folder in sorted(graph)]
    lines += [f"cycle: {' <-> '.join(component)}" for component in cycles(graph)]
    return "\n".join(lines)


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_folders_call_one_way(flavour: str) -> None:
    graph = folder_graph(paths.build_dir(), FLAVOURS[flavour])
    print(describe(graph))
    assert {"core", "hdf5", "mpiio"} <= graph.keys()
    assert cycles(graph) == [], describe(graph)


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_core_calls_no_io_library(flavour: str) -> None:
    """core/ reaches HDF5, MPI-IO files and the layers only through the layers' table: its
    objects use no HDF5 call, no MPI_File call, and nothing a layer's folder defines."""
    folders = folder_symbols(paths.build_dir(), FLAVOURS[flavour])
    used = folders["core"][1]
    assert {name for name in used if name.startswith(("H5", "MPI_File", "PMPI_File"))} == set()
    for layer in ("hdf5", "mpiio", "posix"):
        assert used & folders[layer][0] == set(), layer


if __name__ == "__main__":
    print(describe(folder_graph(Path(sys.argv[1]) if len(sys.argv) > 1 else paths.build_dir())))
