"""The store's details keys are declared once: a mistyped key is an error when written and when
read, so that a resume cannot silently miss what was stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.store.database import Store
from iotwin.store.details import DETAIL_KEYS, UndeclaredDetailError


def _add(store: Store, details: dict[str, object]) -> int:
    return store.add_evaluation(None, config={}, workload="w", ranks=1, platform="local",
                                source="real", status="ok", details=details)


def test_a_mistyped_key_is_refused_when_written(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(UndeclaredDetailError, match="confim_round"):
            _add(store, {"confim_round": 1})
        with pytest.raises(UndeclaredDetailError, match="mesured"):
            store.add_calibration("local", {"a": 1.0}, fit_error=0.1, heldout_error=None,
                                  details={"mesured": 3})
        assert store.evaluations() == [] and store.calibrations() == []


def test_a_mistyped_key_is_refused_when_read(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        _add(store, {"label": "confirm", "confirm_round": 1})
        (row,) = store.evaluations()
    assert row.details == {"label": "confirm", "confirm_round": 1}
    assert row.details.get("label") == "confirm" and row.details["confirm_round"] == 1
    assert "cell" not in row.details and row.details.get("x") is None
    for read in (lambda: row.details.get("lable"), lambda: row.details["confirm_rounds"],
                 lambda: "lable" in row.details):
        with pytest.raises(UndeclaredDetailError):
            read()


def test_the_keys_the_resume_depends_on_are_declared() -> None:
    assert {"calibration", "measured", "label", "confirm_round", "cell", "x"} <= DETAIL_KEYS
