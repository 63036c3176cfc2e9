"""iosim's batch workers and phase reuse: a config simulated among others on a shared engine
gives what it gives alone, and rounds that differ only by which OST they hit are timed once."""

from __future__ import annotations

import pytest
from iotwin.config.validation import validate_config
from iotwin.model.sim import simulate
from support.small_platform import MB, MiB, small_platform, workload


@pytest.mark.parametrize("aggregate", [True, False])
def test_configs_simulated_together_match_configs_simulated_alone(aggregate: bool) -> None:
    plat = small_platform(degradation=0.05, rpc_overhead_s=0.001, lock_conflict_s=0.01)
    wl = workload(16, 3 * MiB, transfer="collective", ranks_per_node=4, api="hdf5", datasets=2)
    configs = [validate_config(c, "test") for c in [
        {},
        {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "1MiB"}},
        {"lustre": {"stripe_count": 4}, "mpiio": {"romio_cb_write": "disable"}},
        {"lustre": {"stripe_count": 2}, "mpiio": {"romio_cb_write": "enable", "cb_nodes": 2},
         "hdf5": {"alignment": {"threshold": 0, "boundary": "1MiB"}}},
        {"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "1MiB"}},  # a repeat
    ]]
    options = {"aggregate": aggregate}
    together = simulate(plat, wl, configs, jobs=2, options=options)
    alone = [simulate(plat, wl, [c], jobs=1, options=options)[0] for c in configs]
    for t, a in zip(together, alone, strict=True):
        assert t.ok and a.ok, (t.error, a.error)
        assert t.time_s == pytest.approx(a.time_s, rel=1e-9)
        assert t.phases == pytest.approx(a.phases, rel=1e-9)
        assert t.breakdown == a.breakdown


def test_rounds_on_rotating_osts_are_one_distinct_phase() -> None:
    # 4 nodes, one aggregator each over its own 4 MiB; 1 MiB rounds and 1 MiB stripes over 4
    # OSTs: in round r every aggregator writes its r-th MiB, all on OST r.
    wl = workload(4, 4 * MiB, transfer="collective")
    cfg = validate_config({"mpiio": {"romio_cb_write": "enable", "cb_buffer_size": "1MiB"},
                           "lustre": {"stripe_count": 4, "stripe_size": "1MiB"}}, "test")
    [fast] = simulate(small_platform(), wl, [cfg])
    [slow] = simulate(small_platform(), wl, [cfg], options={"aggregate": False})
    assert fast.breakdown["rounds"] == 4
    assert fast.breakdown["bytes_per_target"] == [4 * MiB] * 4
    assert fast.breakdown["distinct_phases_simulated"] == 1
    # per round: 4 MiB through one OST, after each aggregator copies its own MiB in memory
    per_round = 4 * MiB / (100 * MB) + MiB / (1e6 * MB)
    assert fast.phases["write"] == pytest.approx(4 * per_round, rel=1e-6)
    assert slow.phases["write"] == pytest.approx(fast.phases["write"], rel=1e-6)
