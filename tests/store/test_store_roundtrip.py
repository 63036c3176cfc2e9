"""The results store: round trips, WAL durability across processes, schema versioning."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from iotwin.config.validation import validate_config
from iotwin.core.errors import UserError
from iotwin.core.hashing import config_hash
from iotwin.store.database import SCHEMA_VERSION, Store, resolve_path

CONFIG = validate_config({"mpiio": {"cb_nodes": 2, "cb_config_list": "*:*"},
                          "hdf5": {"alignment": {"threshold": 0, "boundary": "1MiB"}}}, "test")


def test_evaluation_round_trip(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        campaign = store.create_campaign("tune vpic", kind="tune", spec={"budget": 20})
        eid = store.add_evaluation(
            campaign, config=CONFIG, workload="vpic-io --particles 1024", ranks=4,
            platform="local", source="real", status="ok", repetition=3, measured_s=1.5,
            rate_mbs=89.5, bytes=134217728, phases={"write_s": 1.0, "sync_s": 0.5},
            effective=[{"file": "a.h5", "not_effective": []}], details={"generation": 2})
    with Store(tmp_path / "r.db") as store:
        (row,) = store.evaluations(campaign)
        assert row.id == eid
        assert row.config == CONFIG
        assert row.config_hash == config_hash(CONFIG)
        assert (row.workload, row.ranks, row.platform, row.source) == (
            "vpic-io --particles 1024", 4, "local", "real")
        assert (row.repetition, row.status, row.measured_s, row.predicted_s) == (3, "ok", 1.5,
                                                                                 None)
        assert row.phases == {"write_s": 1.0, "sync_s": 0.5}
        assert row.effective == [{"file": "a.h5", "not_effective": []}]
        assert row.details == {"generation": 2}
        assert store.campaign(campaign).spec == {"budget": 20}


def test_filters_select_matching_rows(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        for source, status in (("sim", "ok"), ("real", "failed"), ("real", "ok")):
            store.add_evaluation(None, config=CONFIG, workload="w", ranks=2, platform="p",
                                 source=source, status=status)
        store.add_evaluation(None, config={}, workload="w", ranks=2, platform="p",
                             source="real", status="ok")
        assert [e.source for e in store.evaluations(status="ok")] == ["sim", "real", "real"]
        assert len(store.evaluations(source="real", config_hash=config_hash(CONFIG))) == 2
        assert store.evaluations(ranks=3) == []


def test_config_hash_ignores_key_order_but_not_values() -> None:
    reordered = {"hdf5": CONFIG["hdf5"], "mpiio": {"cb_config_list": "*:*", "cb_nodes": 2}}
    assert config_hash(reordered) == config_hash(CONFIG)
    assert config_hash({"mpiio": {"cb_nodes": 4}}) != config_hash({"mpiio": {"cb_nodes": 2}})


def test_calibrations_latest_per_platform(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        first = store.add_calibration("hopper", {"ost_bw": 1.0}, fit_error=0.2, heldout_error=0.3)
        store.add_calibration("local", {"ost_bw": 9.0}, fit_error=0.1, heldout_error=None)
        last = store.add_calibration("hopper", {"ost_bw": 2.0}, fit_error=0.1, heldout_error=0.15)
        latest = store.latest_calibration("hopper")
        assert latest is not None and latest.id == last != first
        assert latest.parameters == {"ost_bw": 2.0}
        assert store.calibration(first).heldout_error == 0.3
        assert store.latest_calibration("nowhere") is None


def test_calibrations_of_one_campaign(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        campaigns = [store.create_campaign(f"c{i}", kind="tune", spec={}) for i in range(2)]
        ids = [store.add_calibration("local", {"ost_bw": float(i)}, fit_error=None,
                                     heldout_error=None, campaign_id=campaigns[i % 2])
               for i in range(4)]
        store.add_calibration("local", {"ost_bw": 9.0}, fit_error=None, heldout_error=None)
        assert [c.id for c in store.calibrations(campaign_id=campaigns[1])] == ids[1::2]
        latest = store.latest_calibration(campaign_id=campaigns[0])
        assert latest is not None and latest.id == ids[2]
        assert [c.id for c in store.calibrations("hopper", campaign_id=campaigns[1])] == []
        assert len(store.calibrations("local")) == 5


def test_database_is_in_wal_mode_with_schema_version(tmp_path: Path) -> None:
    Store(tmp_path / "r.db").close()
    raw = sqlite3.connect(tmp_path / "r.db")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_row_is_durable_when_writer_is_killed(tmp_path: Path) -> None:
    """A row added by a process that then dies without closing is readable by another."""
    db = tmp_path / "r.db"
    writer = (
        "import os, sys\n"
        "from iotwin.store.database import Store\n"
        f"s = Store({str(db)!r})\n"
        "s.add_evaluation(None, config={}, workload='w', ranks=1, platform='p',"
        " source='real', status='ok', measured_s=2.0)\n"
        "os._exit(9)\n"  # no close, no commit hook, no atexit
    )
    result = subprocess.run([sys.executable, "-c", writer], check=False)
    assert result.returncode == 9
    with Store(db) as store:
        assert [e.measured_s for e in store.evaluations()] == [2.0]


def test_reader_sees_rows_while_writer_holds_connection(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as writer, Store(tmp_path / "r.db") as reader:
        writer.add_evaluation(None, config={}, workload="w", ranks=1, platform="p",
                              source="sim", status="ok", predicted_s=1.0)
        assert len(reader.evaluations()) == 1


def test_bad_status_is_rejected(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store, pytest.raises(sqlite3.IntegrityError):
        store.add_evaluation(None, config={}, workload="w", ranks=1, platform="p",
                             source="real", status="maybe")  # type: ignore[arg-type]


def test_newer_schema_is_refused_by_name(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    Store(db).close()
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(UserError, match=r"r\.db.*newer"):
        Store(db)


def test_non_database_file_is_a_user_error(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.txt"
    bogus.write_text("this is not sqlite " * 100)
    with pytest.raises(UserError, match=r"notes\.txt"):
        Store(bogus)


def test_store_path_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IOTWIN_STORE", raising=False)
    assert resolve_path(None) == Path("iotwin.db")
    monkeypatch.setenv("IOTWIN_STORE", "/x/env.db")
    assert resolve_path(None) == Path("/x/env.db")
    assert resolve_path("cli.db") == Path("cli.db")


def test_unreachable_path_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no-such-dir"):
        Store(tmp_path / "no-such-dir" / "r.db")


def _prediction(campaign: int | None, nodes: int, **overrides: object) -> dict[str, object]:
    return {"campaign_id": campaign, "config": {"mpiio": {"cb_nodes": nodes}}, "workload": "w",
            "ranks": 4, "platform": "p", "source": "sim", "status": "ok",
            "predicted_s": 1.0 / nodes, **overrides}


def test_a_batch_of_evaluations_is_stored_in_one_transaction(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        campaign = store.create_campaign("screen", kind="tune")
        statements: list[str] = []
        store._db.set_trace_callback(statements.append)
        ids = store.add_evaluations(_prediction(campaign, n, details={"generation": 1})
                                    for n in (1, 2, 4))
        store._db.set_trace_callback(None)
        assert [s for s in statements if s.split()[0] in ("BEGIN", "COMMIT")] == [
            "BEGIN IMMEDIATE", "COMMIT"]
    with Store(tmp_path / "r.db") as store:
        rows = store.evaluations(campaign)
    assert [row.id for row in rows] == ids
    assert [(row.config["mpiio"]["cb_nodes"], row.predicted_s) for row in rows] == [
        (1, 1.0), (2, 0.5), (4, 0.25)]
    assert {row.details["generation"] for row in rows} == {1}


def test_a_bad_row_stores_none_of_its_batch(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        with pytest.raises(sqlite3.IntegrityError):
            store.add_evaluations([_prediction(None, 1), _prediction(None, 2, status="maybe")])
        with pytest.raises(TypeError, match="colour"):
            store.add_evaluations([_prediction(None, 1, colour="blue")])
        assert store.evaluations() == []
        store.add_evaluation(None, config={}, workload="w", ranks=1, platform="p",
                             source="sim", status="ok")  # the store is still usable
        assert len(store.evaluations()) == 1


def test_a_version_1_store_gains_the_jobs_table_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    with Store(path) as store:
        cid = store.create_campaign("old", kind="tune")
        store.add_evaluation(cid, config={}, workload="w", ranks=2, platform="p",
                             source="real", status="ok", measured_s=1.0)
    with sqlite3.connect(path) as db:  # as a store written before jobs existed
        db.execute("DROP TABLE jobs")
        db.execute("PRAGMA user_version=1")
    with Store(path) as store:
        assert len(store.evaluations(cid)) == 1
        job = store.add_job(cid, {"config": "abc", "repetition": 0}, {"job": "7", "dir": "/d"})
        store.update_job(job, handle={"job": "8", "dir": "/d", "attempt": 1})
        [queued] = store.queued_jobs(cid)
        assert queued.handle["job"] == "8" and queued.run_key["config"] == "abc"
        store.update_job(job, state="collected")
        assert store.queued_jobs(cid) == []
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
