"""A program run from its case directory, as under mpiexec: it reads ./input.nml and writes
into ./out/ (tests/programs/case_app.c). `iotwin run` and `iotwin tune` started there find
its files, and leave the directory as it was."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.core import paths
from iotwin.executors.local import SCRATCH_FOLDER
from iotwin.store.database import Store

pytestmark = pytest.mark.slow

STEPS, KIB, RANKS = 2, 256, 2


def iotwin(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotwin", *argv], cwd=cwd, text=True,
                          capture_output=True, check=False, timeout=900)


@pytest.fixture
def case(tmp_path: Path) -> Path:
    """A case directory: the program, its input, and the output folder it expects."""
    folder = tmp_path / "case"
    (folder / "out").mkdir(parents=True)
    shutil.copy(paths.build_dir() / "tests" / "programs" / "case_app", folder / "case_app")
    (folder / "input.nml").write_text(f"&case\n  steps = {STEPS}, kib = {KIB}\n/\n")
    return folder


def tree(folder: Path) -> list[str]:
    """The directory's files, and that iotwin's own folder of run folders there (SCRATCH_FOLDER,
    hidden) holds none: every run's folder was removed."""
    runs = folder / SCRATCH_FOLDER
    assert not runs.is_dir() or not any(runs.iterdir()), f"run folders left: {list(runs.iterdir())}"
    ours = {runs, runs.parent}
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p not in ours)


def test_run_from_the_case_directory_finds_its_input_and_output_folder(
        case: Path, tmp_path: Path) -> None:
    before = tree(case)
    done = iotwin("run", "--ranks", str(RANKS), "--repeat", "3", "--json", "--store",
                  str(tmp_path / "s.db"), "--", "./case_app", cwd=case)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [rep["status"] for rep in result["repetitions"]] == ["ok"] * 3
    assert all(rep["bytes"] == STEPS * RANKS * KIB * 1024 for rep in result["repetitions"])
    assert tree(case) == before  # out/step_*.h5 and case.log of each run removed


def test_workdir_runs_it_there_from_anywhere_and_keep_holds_its_files(
        case: Path, tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    done = iotwin("run", "--ranks", str(RANKS), "--repeat", "2", "--workdir", "case",
                  "--keep", str(kept), "--store", "s.db", "--", "case/case_app", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    runs = [f"iotwin-runs/{n}{name}" for n in ("001", "002") for name in (
        "", "/iotwin-config.yaml", "/iotwin-report.jsonl", "/stderr", "/stdout")]
    assert tree(kept) == sorted(["case.log", "iotwin-runs", *runs, "iotwin-runs/kept.json",
                                 "out", "out/step_0.h5",
                                 "out/step_1.h5"])
    # the last run's log: one line per step (each run started without the previous one's)
    assert (kept / "case.log").read_text().count("written") == STEPS
    assert tree(case) == ["case_app", "input.nml", "out"]


def test_a_failing_run_shows_the_programs_last_words(case: Path, tmp_path: Path) -> None:
    (case / "out").rmdir()
    done = iotwin("run", "--ranks", str(RANKS), "--repeat", "1", "--store",
                  str(tmp_path / "s.db"), "--", "./case_app", cwd=case)
    assert done.returncode == 1
    assert "cannot create out/step_0.h5 (does ./out exist?)" in done.stdout


def test_tune_from_the_case_directory_succeeds_and_leaves_no_outputs(
        case: Path, tmp_path: Path) -> None:
    before, store = tree(case), tmp_path / "s.db"
    # every step of the pipeline runs the program there (capture, search, confirmation,
    # summary), each as few times as it can; the model's refit, which runs nothing, at its least
    done = iotwin("tune", "--ranks", str(RANKS), "--real-budget", "3", "--confirm", "2",
                  "--confirm-runs", "1", "--summary-repeat", "1", "--set", "fit_parameters=1",
                  "--set", "fit_evaluations=1", "--store", str(store),
                  "--output", str(tmp_path / "tuned.yaml"), "--json", "--", "./case_app",
                  cwd=case)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["runs_used"] == 3
    assert tree(case) == before
    with Store(store) as db:
        rows = db.evaluations(result["campaign"], source="real")
        spec = db.campaign(result["campaign"]).spec
    assert rows and all(row.status == "ok" for row in rows)
    assert {row.bytes for row in rows} == {STEPS * RANKS * KIB * 1024}
    assert spec["workdir"] == str(case)
    assert [f["name"] for f in spec["workload"]["files"]] == ["out/step_0.h5", "out/step_1.h5"]
