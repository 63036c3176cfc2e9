"""iosim's answers kept on disk (iotwin.model.sim_memo): the same answers as iosim's, in any
order and batch; a config is asked of iosim once per model; another calibration, workload or
build is another key."""

from __future__ import annotations

from pathlib import Path

from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.model.sim_memo import memoised
from iotwin.workloads.workload import kernel_workload

WORKLOAD = kernel_workload("vpic-io", 4, ["--particles", "1048576"])
CONFIGS = [{}, {"mpiio": {"romio_cb_write": "disable"}}, {"mpiio": {"romio_cb_write": "enable"}},
           {"lustre": {"stripe_count": 2}, "mpiio": {"cb_buffer_size": 2**20}}]


def test_answers_through_the_memo_are_iosims_in_any_order_and_asked_once(tmp_path: Path
                                                                         ) -> None:
    platform = load_platform("local")
    plain = simulate(platform, WORKLOAD, CONFIGS)
    with memoised(tmp_path / "memo.sqlite") as memo:
        first = simulate(platform, WORKLOAD, CONFIGS[:2])
        assert memo.simulated == 2
        mixed = simulate(platform, WORKLOAD, CONFIGS[::-1])
        assert memo.simulated == 4  # only the two it lacked
    with memoised(tmp_path / "memo.sqlite") as memo:  # another process's view of the file
        again = simulate(platform, WORKLOAD, CONFIGS)
        assert memo.simulated == 0
    assert first == plain[:2]
    assert mixed[::-1] == plain
    assert again == plain


def test_another_calibration_or_workload_is_simulated_afresh(tmp_path: Path) -> None:
    platform = load_platform("local")
    name, (value, low, high) = next(iter(platform.free_parameters().items()))
    calibrated = platform.with_values({name: high if value != high else low})
    larger = kernel_workload("vpic-io", 4, ["--particles", "2097152"])
    with memoised(tmp_path / "memo.sqlite") as memo:
        simulate(platform, WORKLOAD, CONFIGS)
        assert memo.simulated == len(CONFIGS)
        recalibrated = simulate(calibrated, WORKLOAD, CONFIGS)
        assert memo.simulated == 2 * len(CONFIGS)
        bigger = simulate(platform, larger, CONFIGS)
        assert memo.simulated == 3 * len(CONFIGS)
    assert recalibrated == simulate(calibrated, WORKLOAD, CONFIGS)
    assert bigger == simulate(platform, larger, CONFIGS)
