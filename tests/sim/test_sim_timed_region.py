"""The workload's timed region (`timed`, sim-models/WORKLOAD.md) is the region iosim's answer
is over: open to close by default, the write phases alone with `timed: writes`; a measured
table whose program times its writes alone is predicted over the same region."""

from __future__ import annotations

from dataclasses import replace

import pytest
from iotwin.core.errors import UserError
from iotwin.executors.table import read_table
from iotwin.model.calibration import SimModel
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.studies.strategy_benchmark import table_case
from iotwin.workloads.workload import kernel_workload, validate_workload
from support.programs import REPO_ROOT

WORKLOAD = kernel_workload("vpic-io", 4, ["--particles", "1048576"])
CONFIGS = [{}, {"mpiio": {"romio_cb_write": "disable"}}]


def test_a_writes_only_rate_leaves_out_open_and_close() -> None:
    platform = load_platform("local")
    whole = simulate(platform, WORKLOAD, CONFIGS)
    writes = simulate(platform, {**WORKLOAD, "timed": "writes"}, CONFIGS)
    stated = simulate(platform, {**WORKLOAD, "timed": "open-to-close"}, CONFIGS)
    assert stated == whole  # open-to-close is what an unstated region means
    for region, full in zip(writes, whole, strict=True):
        assert region.phases == full.phases  # the same run, timed over less of it
        assert region.time_s == pytest.approx(full.phases["write"])
        assert full.time_s == pytest.approx(sum(full.phases.values()))
        assert region.rate_mbs is not None and full.rate_mbs is not None
        payload = full.rate_mbs * full.time_s
        assert region.rate_mbs == pytest.approx(payload / full.phases["write"])
        assert region.rate_mbs > full.rate_mbs


def test_an_unknown_timed_region_is_refused_naming_it() -> None:
    with pytest.raises(UserError, match=r"timed.*open-to-close.*writes"):
        validate_workload({**WORKLOAD, "timed": "reads"}, "w.yaml")


def test_a_table_whose_program_times_its_writes_is_predicted_over_them() -> None:
    measured = REPO_ROOT / "experiments" / "landscape" / "h5py-field-2"
    case = table_case("h5py-field-2", measured.with_suffix(".yaml"))
    assert case.workload is not None and "timed" not in case.workload
    writes_only = replace(case, workload=validate_workload({**case.workload, "timed": "writes"},
                                                           "w.yaml"))
    configs = read_table(measured.with_suffix(".csv")).configs[:3]
    platform = load_platform(case.platform)
    whole = SimModel(platform, case.model_workload()).predict(configs)
    timed = SimModel(platform, writes_only.model_workload()).predict(configs)
    region = simulate(platform, writes_only.model_workload(), configs)
    assert timed == [r.rate_mbs for r in region]
    assert all(t is not None and w is not None and t > w
               for t, w in zip(timed, whole, strict=True))
