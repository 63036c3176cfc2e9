"""Every module of the package imports on its own, from a fresh start of the package (an import
cycle or a module that needs another to be imported first fails here), and the import graph has
no cycle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


IMPORTS_ALONE = REPO_ROOT / "tests" / "support" / "imports_alone.py"


def import_errors(modules: list[str], env: dict[str, str] | None = None) -> dict[str, str | None]:
    """Each module's error when imported alone (tests/support/imports_alone.py), or None."""
    done = subprocess.run([sys.executable, str(IMPORTS_ALONE), *modules], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    errors: dict[str, str | None] = json.loads(done.stdout.splitlines()[-1])
    return errors


@pytest.fixture(scope="module")
def package_import_errors() -> dict[str, str | None]:
    return import_errors(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_alone(module: str, package_import_errors: dict[str, str | None]) -> None:
    assert package_import_errors[module] is None, package_import_errors[module]


def test_importing_alone_fails_a_cycle_and_a_module_that_needs_another_first(
        tmp_path: Path) -> None:
    """Each module starts from a fresh package, whatever was imported before it: ``uses`` only
    works once ``leaf`` has been imported, and it is checked after ``leaf``."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "leaf.py").write_text("VALUE = 1\n")
    (package / "uses.py").write_text("import pkg\nVALUE = pkg.leaf.VALUE\n")
    (package / "first.py").write_text("from pkg.second import B\nA = 1\n")
    (package / "second.py").write_text("from pkg.first import A\nB = 2\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    errors = import_errors(["pkg.leaf", "pkg.uses", "pkg.first", "pkg.second"], env)
    assert errors["pkg.leaf"] is None
    assert "has no attribute 'leaf'" in str(errors["pkg.uses"])
    assert "partially initialized module" in str(errors["pkg.first"])
    assert "partially initialized module" in str(errors["pkg.second"])


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
