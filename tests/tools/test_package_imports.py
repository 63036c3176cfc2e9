"""Every module of the package imports on its own, in a fresh interpreter (an import cycle or a
module that needs another to be imported first fails here), and the import graph has no cycle."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.programs import REPO_ROOT

TUNER = REPO_ROOT / "tuner"
sys.path.insert(0, str(TUNER / "tools"))
from import_cycles import (  # noqa: E402
    LAYERS,
    cycles,
    import_graph,
    module_names,
    package_graph,
    upward_imports,
)

MODULES = sorted(name for name in module_names() if name != "iotwin.__main__")  # runs the CLI


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_alone(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_import_graph_has_no_cycle() -> None:
    assert cycles(import_graph()) == []


def test_packages_form_one_way_layers() -> None:
    """Every import (function-level ones too) goes from a package to one of a lower layer."""
    graph = import_graph()
    assert cycles(package_graph(graph)) == []
    assert upward_imports(graph) == []


def test_every_package_has_a_layer() -> None:
    packages = {name.split(".")[1] for name in module_names() if name.count(".") >= 1}
    assert packages <= set(LAYERS)


def test_layer_check_finds_an_import_against_the_layers() -> None:
    graph = {"iotwin.store.database": {"iotwin.executors.base"},
             "iotwin.executors.base": {"iotwin.core.run_records"}}
    assert upward_imports(graph) == ["iotwin.store.database -> iotwin.executors.base"]
    assert package_graph(graph) == {"store": {"executors"}, "executors": {"core"}}


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_type_ignore_in_package() -> None:
    ignored = [f"{path}:{number}" for path in sorted((TUNER / "iotwin").rglob("*.py"))
               for number, line in enumerate(path.read_text().splitlines(), 1)
               if "type: ignore" in line]
    assert ignored == []
