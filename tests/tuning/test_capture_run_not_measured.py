"""The capture run of a program's default config is stored with the campaign but is no search
repetition of the default: capture's own work slows the run (up to 1.7x on many small file
sessions), so the default's rate in the search comes from runs without it."""

from __future__ import annotations

from pathlib import Path

from iotwin.core.hashing import config_hash
from iotwin.store.database import Store
from iotwin.tuning.captured_workload import CAPTURE_LABEL
from iotwin.tuning.stored_runs import StoredRuns


def test_the_capture_run_is_stored_but_is_no_search_repetition(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cid = store.create_campaign("c", kind="tune")
        row = {"config": {}, "workload": "ior", "ranks": 2, "platform": "local",
               "source": "real", "status": "ok", "measured_s": 1.0, "rate_mbs": 5.7}
        store.add_evaluation(cid, **row, details={"label": CAPTURE_LABEL})
        search = store.add_evaluation(cid, **{**row, "rate_mbs": 15.6},
                                      details={"measured_index": 0})
        assert len(store.evaluations(cid, source="real")) == 2
        repetitions = StoredRuns(store, cid, "real").repetitions(config_hash({}))
    assert [r.id for r in repetitions] == [search]
