"""`-o FILE` never replaces a file that exists unless `--force` says to: the refusal comes
before any work (no log read, no program run, no campaign started), names the file and leaves
it as it was; with `--force` the file is written whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import darshan
import pytest
import yaml
from iotwin.core import paths

IOR_LOG = Path(darshan.__file__).parent / "examples" / "example_logs" / "ior_hdf5_example.darshan"
SHEET = paths.platforms_dir() / "sheets" / "archer.yaml"
WORKLOAD = paths.repo_root() / "tests" / "formats" / "workload-corpus.yaml"
USERS = "the user's own notes\n"


def iotwin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=300)


COMMANDS = {
    "workload from-darshan": ["workload", "from-darshan", str(IOR_LOG)],
    "platform new": ["platform", "new", str(SHEET)],
    "tune": ["tune", "--platform", "archer", "--kernel", "vpic-io", "--ranks", "2",
             "--executor", "twin", "--real-budget", "2", "--store", "s.db"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_existing_output_is_refused_untouched_before_any_work(tmp_path: Path,
                                                                  command: str) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(USERS)
    flag = "--output" if command == "tune" else "-o"
    done = iotwin(*COMMANDS[command], flag, str(mine), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"iotwin: error: {mine}: exists; give --force to replace it\n"
    assert mine.read_text() == USERS
    assert not (tmp_path / "s.db").exists()  # no campaign started


def test_force_replaces_the_file_whole(tmp_path: Path) -> None:
    mine = tmp_path / "archer.yaml"
    mine.write_text(USERS)
    done = iotwin("platform", "new", str(SHEET), "-o", str(mine), "--force", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load(mine.read_text()) == yaml.safe_load(
        (paths.platforms_dir() / "archer.yaml").read_text())


def test_a_new_file_needs_no_force_and_a_directory_is_never_replaced(tmp_path: Path) -> None:
    made = tmp_path / "new.yaml"
    assert iotwin("workload", "from-darshan", str(IOR_LOG), "-o", str(made),
                  cwd=tmp_path).returncode == 0
    assert yaml.safe_load(made.read_text())["iotwin_workload"] == 1
    folder = tmp_path / "folder"
    folder.mkdir()
    done = iotwin("workload", "from-darshan", str(IOR_LOG), "-o", str(folder), "--force",
                  cwd=tmp_path)
    assert done.returncode == 2 and "is a directory" in done.stderr
