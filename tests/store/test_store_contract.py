"""The store's contract, run over each way a store is opened (as Optuna's storage tests run
over each storage): one made now, one opened again, one made before the application id was
set, one of schema v1, and one opened read-only. Then the files that are not ours: refused
in one line naming the file, and left byte for byte as they were."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.store.database import APPLICATION_ID, SCHEMA_VERSION, Store, StoreError
from support.small_disk import in_namespace

#: every way a store is opened to write
WRITABLE = ["created", "reopened", "made-before-the-id", "schema-v1"]
#: and to read
READABLE = [*WRITABLE, "read-only"]


def _v1(path: Path) -> None:
    """A store as schema v1 made it: no jobs table, no application id."""
    Store(path).close()
    raw = sqlite3.connect(path)
    raw.executescript("DROP TABLE jobs; PRAGMA user_version=1; PRAGMA application_id=0;")
    raw.close()


def _before_the_id(path: Path) -> None:
    Store(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id=0")
    raw.close()


@contextmanager
def opened(mode: str, path: Path) -> Iterator[Store]:
    """A store opened the way ``mode`` says, filled as `_fill` does when it is read-only."""
    if mode == "reopened":
        Store(path).close()
    elif mode == "made-before-the-id":
        _before_the_id(path)
    elif mode == "schema-v1":
        _v1(path)
    elif mode == "read-only":
        with Store(path) as writer:
            _fill(writer)
        with Store(path, read_only=True) as store:
            yield store
        return
    with Store(path) as store:
        yield store


def _fill(store: Store) -> dict[str, int]:
    campaign = store.create_campaign("c", kind="tune", spec={"budget": 3})
    evaluation = store.add_evaluation(campaign, config={"mpiio": {"cb_nodes": 2}},
                                      workload="w", ranks=4, platform="p", source="real",
                                      status="ok", measured_s=2.0, rate_mbs=50.0,
                                      details={"generation": 1})
    calibration = store.add_calibration("p", {"ost_bw": 1.5}, fit_error=0.1,
                                        heldout_error=None, campaign_id=campaign)
    job = store.add_job(campaign, {"hash": "h", "repetition": 0}, {"job": "17"})
    return {"campaign": campaign, "evaluation": evaluation, "calibration": calibration,
            "job": job}


def _check(store: Store, ids: dict[str, int]) -> None:
    assert store.campaign(ids["campaign"]).spec == {"budget": 3}
    [row] = store.evaluations(ids["campaign"])
    assert (row.id, row.config, row.rate_mbs, row.details) == (
        ids["evaluation"], {"mpiio": {"cb_nodes": 2}}, 50.0, {"generation": 1})
    assert store.calibration(ids["calibration"]).parameters == {"ost_bw": 1.5}
    [job] = store.queued_jobs(ids["campaign"])
    assert (job.id, job.handle) == (ids["job"], {"job": "17"})


def _ids(store: Store) -> dict[str, int]:
    return {"campaign": 1, "evaluation": 1, "calibration": 1, "job": 1}


@pytest.mark.parametrize("mode", WRITABLE)
def test_what_is_written_is_read_back_there_and_after_reopening(mode: str,
                                                                tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with opened(mode, path) as store:
        ids = _fill(store)
        _check(store, ids)
    with Store(path) as store:
        _check(store, ids)
    for read_only in (False, True):
        with Store(path, read_only=read_only) as store:
            _check(store, ids)


@pytest.mark.parametrize("mode", WRITABLE)
def test_a_store_opened_to_write_is_marked_as_ours_at_this_version(mode: str,
                                                                   tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with opened(mode, path):
        pass
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


@pytest.mark.parametrize("mode", READABLE)
def test_every_way_of_opening_reads_the_same_rows(mode: str, tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with opened(mode, path) as store:
        if not store.read_only:
            _fill(store)
        _check(store, _ids(store))


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def test_a_read_only_store_writes_nothing_and_refuses_a_write(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as writer:
        _fill(writer)
    before = _digest(tmp_path)
    with Store(path, read_only=True) as store:
        with pytest.raises(StoreError, match="readonly"):
            store.create_campaign("more", kind="run")
        _check(store, _ids(store))
    assert _digest(tmp_path) == before


def test_a_read_only_open_sees_rows_a_writer_still_holds_in_its_wal(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as writer:
        ids = _fill(writer)
        with Store(path, read_only=True) as reader:
            _check(reader, ids)


def test_a_read_only_open_of_nothing_makes_nothing(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"s\.db: no results store there"):
        Store(tmp_path / "s.db", read_only=True)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "s.db").touch()
    with pytest.raises(UserError, match=r"s\.db: an empty file, not an iotwin store"):
        Store(tmp_path / "s.db", read_only=True)


def _foreign(path: Path, script: str) -> None:
    raw = sqlite3.connect(path)
    raw.executescript(script)
    raw.close()



def test_whatif_reads_its_calibrations_from_a_read_only_store(tmp_path: Path) -> None:
    """whatif only reads the store (the calibrations that band its answers): it opens it
    read-only, so a store on a read-only file system serves it and is left as it was."""
    folder = tmp_path / "ro"
    folder.mkdir()
    with Store(folder / "s.db") as writer:
        _fill(writer)
    before = _digest(folder)
    read = ("from iotwin.commands.whatif import _calibrations; "
            f"print(len(_calibrations('{folder / 's.db'}')))")
    script = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
              f"{sys.executable} -c \"{read}\" > {tmp_path}/out 2> {tmp_path}/err; "
              f"echo $? > {tmp_path}/rc")
    subprocess.run([*in_namespace(), "sh", "-c", script], check=True, timeout=300)
    assert (tmp_path / "rc").read_text().strip() == "0", (tmp_path / "err").read_text()
    assert (tmp_path / "out").read_text().strip() == "0"  # p's calibration is not a table's
    assert _digest(folder) == before


FOREIGN = {
    "another application's id": (
        "PRAGMA application_id=1234; CREATE TABLE notes (text); "
        "INSERT INTO notes VALUES ('mine');", "another application, id 0x4d2"),
    "tables that are not ours": (
        "CREATE TABLE notes (text); INSERT INTO notes VALUES ('mine');",
        "tables notes, schema version 0"),
    "our tables and one more": (
        "CREATE TABLE campaigns (id); CREATE TABLE evaluations (id); "
        "CREATE TABLE calibrations (id); CREATE TABLE jobs (id); CREATE TABLE notes (text); "
        "PRAGMA user_version=2;", "tables notes, schema version 2"),
    "a version with no tables": ("PRAGMA user_version=7;", "schema version 7"),
}


@pytest.mark.parametrize("case", FOREIGN)
@pytest.mark.parametrize("read_only", [False, True])
def test_another_programs_sqlite_file_is_refused_untouched(case: str, read_only: bool,
                                                           tmp_path: Path) -> None:
    """Before, ``--store`` on it added the store's tables and turned it to WAL mode."""
    path = tmp_path / "theirs.db"
    script, says = FOREIGN[case]
    _foreign(path, script)
    before = _digest(tmp_path)
    with pytest.raises(UserError) as raised:
        Store(path, read_only=read_only)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: not an iotwin store (") and says in message, message
    assert message.endswith("it is left untouched")
    assert _digest(tmp_path) == before


def test_a_newer_store_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    Store(path).close()
    _foreign(path, f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    before = _digest(tmp_path)
    for read_only in (False, True):
        with pytest.raises(UserError, match=rf"s\.db: store schema v{SCHEMA_VERSION + 1} is "
                                            "newer than this iotwin"):
            Store(path, read_only=read_only)
    assert _digest(tmp_path) == before


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("my notes\n" * 200)
    before = _digest(tmp_path)
    for read_only in (False, True):
        with pytest.raises(UserError, match=r"notes\.db: .*not a database"):
            Store(path, read_only=read_only)
    assert _digest(tmp_path) == before


DAMAGED = {
    "a spec that is not JSON": ("UPDATE campaigns SET spec = '{oops'", "campaigns row 1",
                                "column spec"),
    "a spec that is a list": ("UPDATE campaigns SET spec = '[1]'", "campaigns row 1",
                              "column spec"),
    "a config that is not YAML": ("UPDATE evaluations SET config_yaml = 'a: [b'",
                                  "evaluations row 1", "column config_yaml"),
    "a config that is not a config": ("UPDATE evaluations SET config_yaml = 'mpiio: 3'",
                                      "evaluations row 1", "its config"),
    "a fitted parameter that is text": (
        "UPDATE calibrations SET parameters = '{\"ost_bw\": \"fast\"}'", "calibrations row 1",
        "column parameters"),
    "a fitted parameter that is not finite": (
        "UPDATE calibrations SET parameters = '{\"ost_bw\": NaN, \"mdt\": Infinity}'",
        "calibrations row 1", "column parameters"),
}


@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_row_is_one_line_naming_the_store_row_and_column(case: str,
                                                                   tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        _fill(store)
    sql, row, column = DAMAGED[case]
    _foreign(path, sql)
    with Store(path, read_only=True) as store, pytest.raises(UserError) as raised:
        _check(store, _ids(store))
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}: {row}")
    assert column in message


def test_show_reads_a_store_on_a_read_only_file_system(tmp_path: Path) -> None:
    """Before, ``iotwin show`` failed: reading a WAL store makes its shared-memory file."""
    folder = tmp_path / "ro"
    folder.mkdir()
    with Store(folder / "s.db") as writer:
        _fill(writer)
    before = _digest(folder)
    prefix = in_namespace()
    show = f"{sys.executable} -m iotwin show 1 --store {folder / 's.db'}"
    script = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
              f"{show} > {tmp_path}/out 2> {tmp_path}/err; echo $? > {tmp_path}/rc")
    subprocess.run([*prefix, "sh", "-c", script], check=True, timeout=300)
    assert (tmp_path / "rc").read_text().strip() == "0", (tmp_path / "err").read_text()
    assert (tmp_path / "out").read_text().startswith("campaign 1: c (tune)")
    assert _digest(folder) == before


def test_a_store_with_a_renamed_column_is_refused_untouched(tmp_path: Path) -> None:
    """A damaged page can rename a column in the schema; reading rows into the records then
    failed with a TypeError (the fuzz suite's damaged stores)."""
    path = tmp_path / "s.db"
    with Store(path) as writer:
        _fill(writer)
    with closing(sqlite3.connect(path)) as plain:
        plain.execute("ALTER TABLE evaluations RENAME COLUMN details TO detailN")
        plain.execute("PRAGMA journal_mode=DELETE")
    before = _digest(tmp_path)
    for read_only in (True, False):
        with pytest.raises(UserError) as raised:
            Store(path, read_only=read_only)
        message = str(raised.value)
        assert message.startswith(f"{path}: not an iotwin store as this iotwin reads one: "
                                  "table evaluations has columns ") and "detailN" in message
        assert "\n" not in message and message.endswith("it is left untouched")
    assert _digest(tmp_path) == before
