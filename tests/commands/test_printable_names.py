"""Names a program made (files, datasets, arguments) reach iotwin's output escaped, one line
each: `run` printed a dataset name with a newline raw, so a fake line appeared under it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from iotwin.store.database import Store
from support.programs import PROGRAMS

PROGRAM = [sys.executable, str(PROGRAMS / "h5py_odd_names.py"), "out\n.h5"]
SHOWN_DATASET = "/x\\nrate   99999.0 MB/s\\x1b[2K"


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False, timeout=600)


@pytest.mark.usefixtures("parallel_h5py")
def test_run_shows_program_names_escaped(tmp_path: Path) -> None:
    config = tmp_path / "cfg.yaml"
    config.write_text("dataset: {transfer_mode: independent}\n")
    done = iotwin("run", "--ranks", "2", "--repeat", "1", "--config", str(config), "--store",
                  "s.db", "--", *PROGRAM, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{sys.executable} {PROGRAMS}/h5py_odd_names.py out\\n.h5 x2, ")
    assert f"  effective      out\\n.h5:{SHOWN_DATASET}: transfer_mode = independent" in lines
    assert not any(line.startswith("rate   99999") for line in lines)  # no fake line
    assert "\x1b" not in done.stdout and "\x1b" not in done.stderr
    with Store(tmp_path / "s.db") as store:
        [row] = store.evaluations()
    assert row.workload == f"{sys.executable} {PROGRAMS}/h5py_odd_names.py out\\n.h5"
    shown = iotwin("show", "1", "--store", "s.db", cwd=tmp_path).stdout.splitlines()
    assert shown[0] == f"campaign 1: {row.workload} x2 (run)"


@pytest.mark.usefixtures("parallel_h5py")
def test_capture_writes_program_names_escaped(tmp_path: Path) -> None:
    done = iotwin("workload", "capture", "--ranks", "2", "-o", "w.yaml", "--", *PROGRAM,
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [session] = yaml.safe_load((tmp_path / "w.yaml").read_text())["files"]
    assert session["name"] == "out\\n.h5"
    assert [d["name"] for d in session["datasets"]] == [SHOWN_DATASET]
    assert session["calls"][0]["write"] == [SHOWN_DATASET]  # the same name, escaped alike
