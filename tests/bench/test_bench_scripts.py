"""Every benchmark of bench/ runs in the suite at the smallest size its ``SMOKE_ARGS`` give, and
fails on any failed configuration, so that a benchmark whose inputs rotted (configs the typed
Config refuses, a renamed kernel flag) cannot print a figure over refusals unnoticed. Its
figures are not judged here: timings belong to the benchmarks themselves."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from support.programs import REPO_ROOT

BENCH = REPO_ROOT / "bench"
pytestmark = pytest.mark.slow


def is_script(path: Path) -> bool:
    return "__main__" in path.read_text()


def smoke_args(path: Path) -> list[str] | None:
    """The module's ``SMOKE_ARGS`` list, read without importing it."""
    for node in ast.parse(path.read_text()).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "SMOKE_ARGS"):
            return [str(arg) for arg in ast.literal_eval(node.value)]
    return None


SCRIPTS = sorted(path for path in BENCH.glob("*.py") if is_script(path))


def test_benchmarks_are_found() -> None:
    assert {"sim_throughput.py", "interposer_overhead.py"} <= {path.name for path in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_benchmark_runs_at_its_smallest_size(script: Path, tmp_path: Path) -> None:
    args = smoke_args(script)
    assert args is not None, f"{script.name} has no SMOKE_ARGS: the suite cannot run it"
    # run folders in the test's own directory: the repository's .iotwin/runs exists only once
    # another test has made it
    env = {**os.environ, "IOTWIN_BUILD": str(paths.build_dir()), "IOTWIN_SCRATCH": str(tmp_path)}
    done = subprocess.run([sys.executable, str(script), *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{script.name} {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{script.name} printed no figure"
