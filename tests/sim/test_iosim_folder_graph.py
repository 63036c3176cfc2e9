"""iosim's folders are the layers of the storage stack (sim-models/src/README.md), and the
stack goes one way: a folder includes only the folders below it in the README's table. The
graph is read from the sources' includes, which name their folder
(`#include "mpiio/romio.hpp"`).

    python tests/sim/test_iosim_folder_graph.py

prints the graph and its cycles."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from iotwin.core import paths

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tuner" / "tools"))
from import_cycles import cycles

SOURCES = paths.repo_root() / "sim-models" / "src"
INCLUDE = re.compile(r'^#include "([a-z_]+)/[^"]+"', re.MULTILINE)


def layers() -> list[str]:
    """The folders in the README's table, top of the stack first."""
    text = (SOURCES / "README.md").read_text()
    return re.findall(r"^\| `([a-z_]+)/` \|", text, re.MULTILINE)


def folder_graph() -> dict[str, set[str]]:
    """Folder -> the other folders its files include."""
    graph: dict[str, set[str]] = {}
    for source in sorted(SOURCES.glob("*/*.[ch]pp")):
        folder = source.parent.name
        graph.setdefault(folder, set()).update(
            set(INCLUDE.findall(source.read_text())) - {folder})
    return graph


def describe(graph: dict[str, set[str]]) -> str:
    lines = [f"{folder} -> {', '.join(sorted(graph[folder])) or '(nothing)'}"
             for folder in sorted(graph)]
    lines += [f"cycle: {' <-> '.join(component)}" for component in cycles(graph)]
    return "\n".join(lines)


def test_every_source_is_in_a_layer() -> None:
    loose = [path.name for path in SOURCES.glob("*.[ch]pp")]
    assert loose == []
    assert set(folder_graph()) == set(layers())


def test_folders_include_one_way() -> None:
    graph = folder_graph()
    assert cycles(graph) == [], describe(graph)


def test_folders_include_only_layers_below() -> None:
    order = {folder: depth for depth, folder in enumerate(layers())}
    upward = sorted(f"{folder} -> {target}" for folder, targets in folder_graph().items()
                    for target in targets if order[target] <= order[folder])
    assert upward == []


def test_a_folder_including_one_above_it_fails() -> None:
    graph = folder_graph()
    assert "engine" in graph["run"]
    assert cycles({**graph, "engine": graph["engine"] | {"run"}}) != []


if __name__ == "__main__":
    print(describe(folder_graph()))
