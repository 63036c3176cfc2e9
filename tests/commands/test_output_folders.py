"""`-o DIR` (report, experiment, validate local, landscape benchmark) writes only what is
iotwin's: a folder holding a file of the user's is refused before any work, untouched, unless
`--force`; then iotwin writes beside the user's files and never removes one. What iotwin wrote
is listed in the folder, so the same command may write there again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.core.owned_folder import WRITTEN_LIST
from iotwin.store.database import Store
from support.stored_campaigns import tune_campaign

USERS = "the user's own notes\n"
EXPERIMENT = paths.repo_root() / "experiments" / "sensitivity-stripe-size.yaml"


def iotwin(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=300)


def users_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "notes.txt").write_text(USERS)
    return folder


def stored_report(tmp_path: Path) -> tuple[Path, int]:
    with Store(tmp_path / "r.db") as store:
        return tmp_path / "r.db", tune_campaign(store)


COMMANDS = {
    "report": ["report", "1", "--store", "s.db"],
    "experiment": ["experiment", str(EXPERIMENT), "--store", "s.db"],
    "validate local": ["validate", "local", "--store", "s.db"],
    "landscape benchmark": ["landscape", "benchmark"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_of_the_users_is_refused_untouched_before_any_work(tmp_path: Path,
                                                                     command: str) -> None:
    folder = users_folder(tmp_path)
    done = iotwin(*COMMANDS[command], "-o", str(folder), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"iotwin: error: -o {folder}: holds files iotwin did not write "
                           f"there (notes.txt); name a new or empty folder, or give --force "
                           f"to write beside them\n")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert (folder / "notes.txt").read_text() == USERS
    assert not (tmp_path / "s.db").exists()  # no store opened, no campaign started


def test_a_folder_iotwin_wrote_takes_its_reports_again_and_lists_them(tmp_path: Path) -> None:
    store, cid = stored_report(tmp_path)
    folder = tmp_path / "out"
    for _ in range(2):
        done = iotwin("report", str(cid), "--store", str(store), "-o", str(folder),
                      cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    listed = json.loads((folder / WRITTEN_LIST).read_text())["paths"]
    assert listed == [f"report-{cid}.csv", f"report-{cid}.html"]
    assert sorted(p.name for p in folder.iterdir()) == sorted([*listed, WRITTEN_LIST])


def test_force_writes_beside_the_users_files_which_stay_theirs(tmp_path: Path) -> None:
    store, cid = stored_report(tmp_path)
    folder = users_folder(tmp_path)
    args = ("report", str(cid), "--store", str(store), "-o", str(folder))
    assert iotwin(*args, "--force", cwd=tmp_path).returncode == 0
    assert (folder / "notes.txt").read_text() == USERS
    assert (folder / f"report-{cid}.html").stat().st_size > 0
    again = iotwin(*args, cwd=tmp_path)  # the notes are still the user's, not listed
    assert again.returncode == 2 and "(notes.txt)" in again.stderr
    assert (folder / "notes.txt").read_text() == USERS


def test_a_listed_path_the_user_replaced_by_a_list_of_their_own_is_not_trusted(
        tmp_path: Path) -> None:
    folder = users_folder(tmp_path)
    (folder / WRITTEN_LIST).write_text(json.dumps({"paths": ["../notes.txt", "/etc"]}))
    done = iotwin(*COMMANDS["report"], "-o", str(folder), cwd=tmp_path)
    assert done.returncode == 2 and "(notes.txt)" in done.stderr


def test_without_o_the_report_files_in_the_current_folder_are_not_replaced(
        tmp_path: Path) -> None:
    store, cid = stored_report(tmp_path)
    mine = tmp_path / f"report-{cid}.html"
    mine.write_text(USERS)
    done = iotwin("report", str(cid), "--store", str(store), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"iotwin: error: report-{cid}.html: exists; give --force to replace it\n"
    assert mine.read_text() == USERS
    assert not (tmp_path / WRITTEN_LIST).exists()
    assert iotwin("report", str(cid), "--store", str(store), "--force",
                  cwd=tmp_path).returncode == 0
    assert mine.read_text().startswith("<!DOCTYPE html>")


def test_a_users_folder_where_the_benchmark_keeps_its_campaigns_is_refused_even_forced(
        tmp_path: Path) -> None:
    folder = tmp_path / "out"
    (folder / "campaigns").mkdir(parents=True)
    (folder / "campaigns" / "thesis.tex").write_text(USERS)
    done = iotwin("landscape", "benchmark", "-o", str(folder), "--force", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (f"iotwin: error: -o {folder}: campaigns in it was not written by "
                           f"iotwin; iotwin writes and removes a folder of that name there: "
                           f"name another folder\n")
    assert (folder / "campaigns" / "thesis.tex").read_text() == USERS
