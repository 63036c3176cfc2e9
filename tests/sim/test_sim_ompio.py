"""iosim's model of Open MPI 4.1's OMPIO (sim-models/src/mpiio/ompio.cpp): a workload run under Open
MPI writes through OMPIO unless its config chooses romio321; OMPIO's collective component,
aggregator count and cycle size come from its MCA parameters and the two hints it reads."""

from __future__ import annotations

from typing import Any

from iotwin.model.sim import SimResult, simulate
from support.small_platform import MiB, run, small_platform, workload


def under_open_mpi(ranks: int, block: int) -> dict[str, Any]:
    return {**workload(ranks, block, transfer="collective", ranks_per_node=ranks),
            "mpi": "openmpi"}


def aggregators(result: SimResult) -> set[int]:
    return set(result.breakdown["aggregators"])


def test_ompio_picks_vulcan_with_one_aggregator_for_a_few_ranks_and_individual_for_two() -> None:
    [four] = run(small_platform(), under_open_mpi(4, MiB), write_paths=True)
    assert four.breakdown["write_paths"] == ["two-phase"] and aggregators(four) == {1}
    [two] = run(small_platform(), under_open_mpi(2, MiB), write_paths=True)
    assert two.breakdown["write_paths"] == ["independent"]  # individual: priority 100 at <= 2


def test_the_simple_grouping_caps_aggregators_at_an_eighth_of_the_processes() -> None:
    [many] = run(small_platform(), under_open_mpi(64, 6 * MiB))
    assert aggregators(many) == {8}


def test_cb_nodes_overrides_num_aggregators_except_under_dynamic_gen2() -> None:
    wl = under_open_mpi(4, MiB)
    mca, hinted, gen2 = run(small_platform(), wl, {"openmpi": {"num_aggregators": 4}},
                            {"openmpi": {"num_aggregators": 4}, "mpiio": {"cb_nodes": 2}},
                            {"openmpi": {"num_aggregators": 3, "fcoll": "dynamic_gen2"},
                             "mpiio": {"cb_nodes": 2}})
    assert (aggregators(mca), aggregators(hinted), aggregators(gen2)) == ({4}, {2}, {3})


def test_the_cycle_is_half_the_buffer_for_vulcan_and_the_whole_for_two_phase() -> None:
    wl = under_open_mpi(4, 8 * MiB)  # 32 MiB through one aggregator
    vulcan, hinted, two_phase = run(
        small_platform(), wl, {"openmpi": {"bytes_per_agg": "4MiB"}},
        {"openmpi": {"bytes_per_agg": "4MiB"}, "mpiio": {"cb_buffer_size": "8MiB"}},
        {"openmpi": {"bytes_per_agg": "4MiB", "fcoll": "two_phase"}})
    assert vulcan.breakdown["rounds"] == 16
    assert hinted.breakdown["rounds"] == 8  # the file's cb_buffer_size hint wins
    assert two_phase.breakdown["rounds"] == 8


def test_romio_hints_change_nothing_under_ompio_and_apply_under_romio321() -> None:
    wl = under_open_mpi(4, MiB)
    hints = {"mpiio": {"romio_cb_write": "disable", "cb_config_list": "*:1"}}
    default, ignored, romio = run(small_platform(collective_step_s=0.01), wl, {}, hints,
                                  {**hints, "openmpi": {"io": "romio321"}}, write_paths=True)
    assert ignored.time_s == default.time_s
    assert ignored.breakdown["write_paths"] == ["two-phase"]
    assert romio.breakdown["write_paths"] == ["independent"]


def test_under_mpich_the_openmpi_block_is_ignored() -> None:
    wl = workload(4, MiB, transfer="collective", ranks_per_node=4)
    plain, with_mca = run(small_platform(), wl, {}, {"openmpi": {"fcoll": "individual",
                                                                 "num_aggregators": 4}})
    assert with_mca.breakdown == plain.breakdown and with_mca.time_s == plain.time_s


def test_an_fcoll_component_iosim_does_not_model_is_an_error_naming_it() -> None:
    [r] = simulate(small_platform(), under_open_mpi(4, MiB), [{"openmpi": {"fcoll": "dynamic"}}])
    assert not r.ok
    assert "openmpi.fcoll" in (r.error or "") and "'dynamic'" in (r.error or "")
