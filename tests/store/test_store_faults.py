"""The store when the disk is full or the file read-only during a tune, and names that are not
UTF-8: one line naming the store, every row committed before kept, the campaign resumable.
The full disk is a small tmpfs (support.small_disk)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from iotwin.store.database import Store
from support.small_disk import in_namespace, mount_line, resize_line

IOTWIN = [sys.executable, "-m", "iotwin"]
#: a twin campaign that stores hundreds of rows (predictions, twin runs, refits), each
#: generation's as it ends: 512 KiB hold two generations, not the whole campaign's three
BUDGET = 12
TUNE = ["tune", "--kernel", "vpic-io", "--ranks", "64", "--platform", "hopper", "--space",
        "poster", "--executor", "twin", "--strategy", "sim-screened", "--real-budget", str(BUDGET),
        "--set", "population=30", "--set", "inner_generations=2", "--set", "patience=100",
        "--summary-repeat", "0", "--confirm", "0", "--", "--particles", "65536"]
SMALL_DISK = "512k"


def _rows(store: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT id, source, status, config_hash, repetition, rate_mbs "
                          "FROM evaluations ORDER BY id").fetchall()
    finally:
        db.close()


def test_a_full_disk_stops_the_tune_in_one_line_and_the_campaign_resumes(
        tmp_path: Path) -> None:
    disk, full, final = tmp_path / "disk", tmp_path / "when-full", tmp_path / "final"
    for folder in (disk, full, final):
        folder.mkdir()
    store = disk / "s.db"
    line = " ".join
    script = "\n".join([
        mount_line(disk, SMALL_DISK),
        f"{line(IOTWIN)} {line(TUNE[:1])} --store {store} {line(TUNE[1:])} "
        f"> {tmp_path}/first.out 2> {tmp_path}/first.err; echo $? > {tmp_path}/first.rc",
        f"cp {disk}/s.db* {full}/",
        resize_line(disk, "64m"),  # space freed
        f"{line(IOTWIN)} tune --resume 1 --store {store} "
        f"> {tmp_path}/second.out 2> {tmp_path}/second.err; echo $? > {tmp_path}/second.rc",
        f"cp {disk}/s.db* {final}/"])
    subprocess.run([*in_namespace(), "sh", "-c", script], cwd=tmp_path, check=True,
                   timeout=1200)

    first = (tmp_path / "first.err").read_text()
    assert (tmp_path / "first.rc").read_text().strip() == "2", first
    assert "Traceback" not in first
    last = first.splitlines()[-1]
    assert last.startswith(f"iotwin: error: {store}: the results store failed: database or "
                           "disk is full; every row stored before is kept")
    assert f"iotwin tune --resume 1 --store {store}" in last
    # every twin run the progress lines reported is in the store the failure left
    reported = max(int(part.split("/")[0]) for part in first.split("runs")[1:])
    when_full = _rows(full / "s.db")
    assert sum(1 for row in when_full if row[1] == "twin") >= reported > 0

    second = (tmp_path / "second.err").read_text()
    assert (tmp_path / "second.rc").read_text().strip() == "0", second
    resumed = _rows(final / "s.db")
    assert resumed[:len(when_full)] == when_full  # kept as they were
    twin = [(row[3], row[4]) for row in resumed if row[1] == "twin"]
    assert len(twin) == len(set(twin)) == BUDGET  # no run measured twice


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user may enter and write (pytest's own are private to their owner)."""
    folder = Path(tempfile.mkdtemp(prefix="iotwin-read-only-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


def test_a_read_only_store_is_one_line_naming_it_and_loses_nothing(open_folder: Path) -> None:
    store = open_folder / "s.db"
    with Store(store) as db:
        db.create_campaign("earlier", kind="run")
        db.add_evaluation(1, config={}, workload="w", ranks=1, platform="local",
                          source="real", status="ok", measured_s=1.0)
    before = _rows(store)
    store.chmod(0o444)
    # root writes whatever the mode says: the store's owner is then someone else
    as_user = (["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
               if os.geteuid() == 0 else [])
    done = subprocess.run([*as_user, *IOTWIN, "tune", "--store", str(store), *TUNE[1:]],
                          cwd=open_folder, text=True, capture_output=True, timeout=600)
    assert done.returncode == 2, done.stderr
    # the cost estimate may come first: it is progress, the error is one line
    [line] = [text for text in done.stderr.splitlines() if "error" in text]
    assert line == (f"iotwin: error: {store}: the results store failed: attempt to write a "
                    "readonly database; every row stored before is kept")
    assert _rows(store) == before


def test_a_program_and_arguments_that_are_not_utf8_are_stored_and_shown(
        tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    program = tmp_path / "prog\udcff"  # the file name byte 0xff (PEP 383)
    program.write_text("#!/bin/sh\nprintf 'bad byte \\377\\n' >&2\nexit 3\n")
    program.chmod(0o755)
    done = subprocess.run([*IOTWIN, "run", "--ranks", "1", "--repeat", "1", "--store",
                           str(store), "--", str(program), "\udcfe"],
                          cwd=tmp_path, capture_output=True, timeout=600)
    assert done.returncode == 1, done.stderr  # the run failed, and is stored as failed
    assert b"Traceback" not in done.stderr
    shown = f"{tmp_path}/prog\\xff \\xfe"
    assert done.stdout.decode().startswith(f"{shown} x1, config (none): 0/1 repetitions ok")
    with Store(store) as db:
        [row] = db.evaluations()
    assert row.workload == shown and row.status == "failed"
    assert row.error is not None and "bad byte \ufffd" in row.error
