"""iosim's batch workers and phase reuse: a config simulated among others gives what it gives
alone, to the bit, whatever the number of workers; rounds that differ only by which OST they
hit are timed once."""

from __future__ import annotations

import json
import random

import pytest
from iotwin.config.validation import validate_config
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate, simulator_input
from support.one_shot_iosim import one_shot_stdout
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
        assert t.time_s == a.time_s
        assert t.phases == a.phases
        assert t.breakdown == a.breakdown


def test_a_batch_answers_the_same_bits_whatever_its_workers_and_order() -> None:
    # VPIC-IO's eight variables on hopper at 512 ranks, configs as a search draws them: many
    # distinct phases, timed over a simulated clock that a shared engine would keep running.
    rng = random.Random(5)
    configs = [validate_config({
        "lustre": {"stripe_count": rng.choice([2, 8, 16, 48, 156]),
                   "stripe_size": rng.choice([MiB, 4 * MiB, 16 * MiB])},
        "mpiio": {"cb_nodes": rng.choice([4, 8, 16]),
                  "cb_buffer_size": rng.choice([4 * MiB, 16 * MiB]),
                  "romio_cb_write": rng.choice(["enable", "disable"])}}, "test") for _ in range(10)]
    wl = {"iotwin_workload": 1, "name": "vpic-io", "ranks": 512,
          "files": [{"name": "vpic-io.h5", "datasets": [
              {"name": f"/Step#0/{v}", "element_bytes": 4,
               "decomposition": {"grid": [512], "block": [2**20]}} for v in "xyzabcde"]}]}
    payload = simulator_input(load_platform("hopper"), wl, configs)
    serial = one_shot_stdout(payload, jobs=1)
    assert all(r["ok"] for r in json.loads(serial)["results"])
    assert one_shot_stdout(payload, jobs=2) == serial
    assert one_shot_stdout(payload, jobs=2) == serial
    backwards = {**payload, "configs": payload["configs"][::-1]}
    answers = json.loads(one_shot_stdout(backwards, jobs=2))["results"]
    assert answers[::-1] == json.loads(serial)["results"]


def test_configs_that_need_the_engine_clock_answer_alike_among_configs_that_do_not() -> None:
    # Under Open MPI, vulcan overlaps a round's shuffle with the round before's writes: with
    # 2 aggregators (configs 0 and 6) that makes phases over both fabrics, timed on SimGrid's
    # clock; the others' phases each use one fabric and are timed in closed form. A worker
    # simulates a config itself and forks it where it first needs the clock, then goes on
    # with the next: every config answers as it does alone, in any order, on any workers.
    wl = {**workload(16, 40 * MiB + 4096, transfer="collective", ranks_per_node=4),
          "mpi": "openmpi"}
    fcolls = ["vulcan", "two_phase", "vulcan", "two_phase", "two_phase", "vulcan", "vulcan"]
    configs = [validate_config({"openmpi": {"fcoll": f, "num_aggregators": 2 + i % 3},
                                "lustre": {"stripe_count": 2 + i % 3}}, "test")
               for i, f in enumerate(fcolls)]
    # NICs slower than the OSTs: the overlapped phases' shared links bind, not the disks
    plat = small_platform(rpc_overhead_s=0.001, lock_conflict_s=0.01, nic_mbs=70)
    payload = simulator_input(plat, wl, configs)
    serial = one_shot_stdout(payload, jobs=1)
    answers = json.loads(serial)["results"]
    assert all(a["ok"] for a in answers)
    alone = [json.loads(one_shot_stdout({**payload, "configs": [c]}, jobs=1))["results"][0]
             for c in payload["configs"]]
    assert answers == alone
    backwards = {**payload, "configs": payload["configs"][::-1]}
    assert json.loads(one_shot_stdout(backwards, jobs=2))["results"][::-1] == answers


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
