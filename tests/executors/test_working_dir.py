"""Runs in the user's working directory: found files, outputs removed or kept, runs in one
directory taking turns, and what a killed iotwin left cleaned up by the next one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor
from iotwin.executors.run_folder import (
    KEPT_RUNS,
    RECORD_NAME,
    clean_killed_runs,
    new_run_folder,
)
from iotwin.executors.working_dir import appeared, listing, save_listing

# reads ./input.nml, writes into ./out/ (which it expects) and a new folder and file of its own
CASE_PROGRAM = ("sh", "-c", "test -e seen.txt && exit 7; read steps < input.nml || exit 5; "
                "echo $steps > out/result.txt && mkdir -p new/deep && echo x > new/deep/f "
                "&& echo log > seen.txt && echo 'the program speaks'")


def case_directory(folder: Path) -> Path:
    (folder / "out").mkdir(parents=True)
    (folder / "input.nml").write_text("3\n")
    (folder / "out" / "old.txt").write_text("from before\n")
    return folder


def tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def executor(work: Path, **options: object) -> LocalExecutor:
    return LocalExecutor(timeout_s=60, scratch_root=work.parent / "runs", workdir=work,
                         preload=False, **options)  # type: ignore[arg-type]


def test_appeared_names_the_top_most_new_paths_and_never_hidden_ones(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "skip").mkdir()
    before = listing(tmp_path, [tmp_path / "skip"])
    for path in ("old/new.h5", "fresh/a/b.h5", ".hidden/x", ".swp", "skip/ignored", "top.h5"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    assert appeared(tmp_path, before, [tmp_path / "skip"]) == ["fresh", "old/new.h5", "top.h5"]


def test_a_program_runs_in_its_directory_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    before = tree(work)
    runner = executor(work)
    for _ in range(2):  # the second run must not see what the first wrote (seen.txt)
        result = runner.run_once(Target(ranks=1, command=CASE_PROGRAM), {})
        assert "exit status" not in (result.error or ""), result.error
        assert tree(work) == before
    assert list((tmp_path / "runs").iterdir()) == []


def test_keep_holds_the_last_outputs_and_every_runs_output_streams(tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    kept = tmp_path / "kept"
    runner = executor(work, keep=kept)
    for _ in range(3):
        runner.run_once(Target(ranks=1, command=CASE_PROGRAM), {})
    assert tree(work) == ["input.nml", "out", "out/old.txt"]
    assert sorted(p.name for p in kept.iterdir()) == [KEPT_RUNS, "new", "out", "seen.txt"]
    assert (kept / "out" / "result.txt").read_text() == "3\n"
    assert not (kept / "out" / "old.txt").exists()  # not the run's: it existed before
    runs = sorted(p.name for p in (kept / KEPT_RUNS).iterdir())
    assert runs == ["001", "002", "003", "kept.json"]
    for run in runs[:-1]:
        assert (kept / KEPT_RUNS / run / "stdout").read_text() == "the program speaks\n"
        assert (kept / KEPT_RUNS / run / "iotwin-config.yaml").exists()


def test_a_failed_run_shows_its_last_lines_and_where_its_output_is_kept(tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    (work / "input.nml").unlink()
    lines = "; ".join(f"echo line {n} >&2" for n in range(40))
    result = executor(work, keep=tmp_path / "kept").run_once(
        Target(ranks=1, command=("sh", "-c", f"{lines}; exit 4")), {})
    assert result.status == "failed"
    error = result.error or ""
    assert "exit status 4" in error and "line 39" in error and "line 10" not in error
    assert f"{tmp_path / 'kept' / KEPT_RUNS / '001'}/stdout" in error


def test_a_keep_folder_that_holds_the_directory_or_foreign_files_is_refused(
        tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    with pytest.raises(UserError, match="holds the working directory"):
        executor(work, keep=tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("")
    with pytest.raises(UserError, match="holds files iotwin did not keep"):
        executor(work, keep=tmp_path / "mine")
    with pytest.raises(UserError, match="is the working directory"):
        LocalExecutor(scratch_root=work, workdir=work)


def test_keep_never_deletes_a_file_of_the_users_beside_what_iotwin_kept(
        tmp_path: Path) -> None:
    """Before, a keep folder holding an ``iotwin-runs`` folder was taken as iotwin's and
    emptied, the user's file in it with the rest."""
    work = case_directory(tmp_path / "case")
    kept = tmp_path / "kept"
    (kept / KEPT_RUNS).mkdir(parents=True)
    (kept / "thesis.tex").write_text("years of work")
    with pytest.raises(UserError, match=r"holds files iotwin did not keep \(iotwin-runs\)"):
        executor(work, keep=kept).run_once(Target(ranks=1, command=CASE_PROGRAM), {})
    assert (kept / "thesis.tex").read_text() == "years of work"


def test_a_keep_folder_iotwin_kept_runs_in_is_reused_and_refused_once_the_user_adds_to_it(
        tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    kept = tmp_path / "kept"
    for _ in range(2):  # a second iotwin takes the first one's folder, and only that
        runner = executor(work, keep=kept)
        runner.run_once(Target(ranks=1, command=CASE_PROGRAM), {})
        runner.run_once(Target(ranks=1, command=CASE_PROGRAM), {})
        assert sorted(p.name for p in (kept / KEPT_RUNS).iterdir()) == ["001", "002",
                                                                         "kept.json"]
    for mine in ("notes.txt", "new/deep/mine.txt", ".hidden", f"{KEPT_RUNS}/mine.txt"):
        (kept / mine).write_text("mine")
        with pytest.raises(UserError, match=f"holds files iotwin did not keep \\({mine}\\)"):
            executor(work, keep=kept)
        assert (kept / mine).read_text() == "mine"
        (kept / mine).unlink()
    executor(work, keep=kept)  # ours alone again
    assert (kept / "out" / "result.txt").read_text() == "3\n"


RUN_ONE = """
import sys
from pathlib import Path
from iotwin.core.run_records import Target
from iotwin.executors.local import LocalExecutor
work = Path(sys.argv[1])
executor = LocalExecutor(timeout_s=60, scratch_root=work.parent / "runs", workdir=work,
                         preload=False)
print(executor.run_once(Target(ranks=1, command=tuple(sys.argv[2:])), {}).error, flush=True)
"""


def run_in_another_iotwin(work: Path, *command: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", RUN_ONE, str(work), *command],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_runs_in_one_directory_take_turns_and_never_see_each_others_files(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    work = case_directory(tmp_path / "case")
    first = run_in_another_iotwin(work, "sh", "-c", "echo a > shared.h5; sleep 2; "
                                                    "test $(cat shared.h5) = a || exit 9")
    while not (work / "shared.h5").exists():
        assert first.poll() is None, first.communicate()
        time.sleep(0.02)
    result = executor(work).run_once(
        Target(ranks=1, command=("sh", "-c", "test -e shared.h5 && exit 8; echo b > shared.h5")),
        {})
    assert "exit status" not in (result.error or ""), result.error
    out, _ = first.communicate(timeout=60)
    assert "exit status" not in out, out
    assert "waiting for another iotwin's run in" in capfd.readouterr().err
    assert tree(work) == ["input.nml", "out", "out/old.txt"]


def test_what_a_killed_iotwin_left_is_cleaned_by_the_next_one(tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    victim = run_in_another_iotwin(
        work, "sh", "-c", "head -c 4000000 /dev/zero > big.dat; mkdir -p out/more; "
                          "echo 1 > out/more/f; sleep 1")
    while not (work / "out" / "more" / "f").exists():
        assert victim.poll() is None, victim.communicate()
        time.sleep(0.02)
    victim.send_signal(signal.SIGKILL)  # its run goes on without it, then ends
    victim.wait()
    [run_dir] = (tmp_path / "runs").iterdir()
    while not (run_dir / "ended").exists():
        time.sleep(0.05)
    time.sleep(1.1)  # beyond the second of slack for coarse file times
    (work / "mine-after.txt").write_text("written after the killed run ended\n")
    executor(work).run_once(Target(ranks=1, command=("true",)), {})
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []
    assert tree(work) == ["input.nml", "mine-after.txt", "out", "out/old.txt"]


def test_a_killed_iotwins_running_program_is_stopped_before_its_files_go(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    work = case_directory(tmp_path / "case")
    marker = f"{os.getpid() % 1000 + 300}.{time.monotonic_ns() % 1000:03d}"
    victim = run_in_another_iotwin(work, "sh", "-c", f"echo x > partial.h5; exec sleep {marker}")
    while not (work / "partial.h5").exists():
        assert victim.poll() is None, victim.communicate()
        time.sleep(0.02)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    executor(work).run_once(Target(ranks=1, command=("true",)), {})
    assert tree(work) == ["input.nml", "out", "out/old.txt"]
    assert "cleaned up after a killed run" in capfd.readouterr().err
    assert not any(marker in (p / "cmdline").read_text(errors="replace")
                   for p in Path("/proc").iterdir() if p.name.isdigit()
                   and (p / "cmdline").exists())


def test_a_run_folder_of_another_host_is_left_alone(tmp_path: Path) -> None:
    work = case_directory(tmp_path / "case")
    runs = tmp_path / "runs"
    folder = new_run_folder(runs, work)
    record = json.loads((folder / RECORD_NAME).read_text())
    (folder / RECORD_NAME).write_text(json.dumps({**record, "host": "another-node",
                                                  "pid": 2**22 + 1}))
    save_listing(folder, listing(work))
    (work / "theirs.h5").write_text("a run of another node, still going\n")
    clean_killed_runs(runs, progress=None)
    assert folder.exists() and (work / "theirs.h5").exists()
    (folder / RECORD_NAME).write_text(json.dumps({**record, "pid": 2**22 + 1}))  # this host
    clean_killed_runs(runs, progress=None)
    assert not folder.exists() and not (work / "theirs.h5").exists()
