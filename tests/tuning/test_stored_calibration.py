"""A resumed campaign adopts the calibration it stored; one the store holds with a parameter
the platform has no bounds for, or outside them, is one line naming the store, the
calibration and the parameter, not a model simulated with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from iotwin.core.errors import UserError
from iotwin.model.calibration import SimModel
from iotwin.model.platforms import load_platform
from iotwin.store.database import Store
from iotwin.tuning.recalibration import recalibrate
from iotwin.tuning.stored_runs import StoredRuns

MEASURED = 2


def resumed(store: Store, parameters: dict[str, float]) -> tuple[SimModel, int, int]:
    """A campaign with a calibration stored after MEASURED measurements, and a model of its
    platform; (model, campaign id, calibration id)."""
    cid = store.create_campaign("c", kind="tune")
    calibration = store.add_calibration("local", parameters, fit_error=0.1, heldout_error=None,
                                        campaign_id=cid, details={"measured": MEASURED})
    return SimModel(load_platform("local"), {}), cid, calibration


def adopt(store: Store, model: SimModel, cid: int) -> int:
    return recalibrate(model, store, cid, StoredRuns(store, cid, "real"), MEASURED, [], None)


def test_a_stored_calibration_within_the_bounds_is_adopted(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        model, cid, calibration = resumed(store, {"compute.nic_mbs": 12000.0})
        assert adopt(store, model, cid) == calibration
    assert model.platform.free_parameters()["compute.nic_mbs"][0] == 12000.0


BAD = {
    "above its bounds": ({"compute.nic_mbs": 1e9},
                         "parameters.compute.nic_mbs: 1000000000.0 is not within platform "
                         "local's bounds [1000, 20000]"),
    "below its bounds": ({"network.collective_step_s": 0.0},
                         "parameters.network.collective_step_s: 0.0 is not within platform "
                         "local's bounds [1e-07, 0.001]"),
    "not a fitted parameter": ({"compute.nic_mbz": 8000.0},
                               "parameters.compute.nic_mbz: not a fitted parameter of "
                               "platform local"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_stored_calibration_outside_the_platform_is_one_line_naming_it(
        tmp_path: Path, case: str) -> None:
    parameters, field = BAD[case]
    path = tmp_path / "s.db"
    with Store(path) as store:
        model, cid, calibration = resumed(store, parameters)
        with pytest.raises(UserError) as raised:
            adopt(store, model, cid)
    assert str(raised.value) == f"{path}: calibration {calibration}: {field}"
    assert model.fitted == {}
