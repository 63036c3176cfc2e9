"""A call with `repeat` (WORKLOAD.md) is the same calls written out one by one.

Capture folds a loop that writes slab after slab into one call with `repeat`, so that its
record does not grow with the loop. The simulator must time the folded form exactly as the
calls written out, and the validator must refuse a repetition that leaves the dataset.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from iotwin.core.errors import UserError
from iotwin.model.platforms import load_platform
from iotwin.model.sim import simulate
from iotwin.workloads.workload import validate_workload

STEPS, RANKS, COLUMNS = 5, 4, 4096


def folded() -> dict[str, Any]:
    return {"iotwin_workload": 1, "name": "loop", "ranks": RANKS, "files": [{
        "name": "loop.h5", "datasets": [{"name": "/series", "element_bytes": 8,
                                         "dims": [STEPS, RANKS * COLUMNS]}],
        "calls": [{"write": ["/series"], "transfer": "collective", "compute_before_s": 0.5,
                   "selections": [{"grid": [1, RANKS], "block": [1, COLUMNS]}],
                   "repeat": {"times": STEPS, "origin_step": [1, 0],
                              "compute_between_s": 0.25}}]}]}


def written_out() -> dict[str, Any]:
    work = copy.deepcopy(folded())
    session = work["files"][0]
    session["calls"] = [
        {"write": ["/series"], "transfer": "collective",
         "compute_before_s": 0.5 if step == 0 else 0.25,
         "selections": [{"grid": [1, RANKS], "block": [1, COLUMNS], "origin": [step, 0]}]}
        for step in range(STEPS)]
    return work


@pytest.mark.parametrize("platform", ["local", "hopper"])
def test_a_repeated_call_simulates_as_the_calls_written_out(platform: str) -> None:
    configs = [{}, {"dataset": {"transfer_mode": "independent"}},
               {"dataset": {"chunk_dims": [1, COLUMNS]}}]
    machine = load_platform(platform)
    folded_results = simulate(machine, validate_workload(folded(), "folded"), configs)
    expanded = simulate(machine, validate_workload(written_out(), "expanded"), configs)
    for a, b in zip(folded_results, expanded, strict=True):
        assert a.ok and b.ok, (a.error, b.error)
        assert (a.time_s, a.phases, a.breakdown) == (b.time_s, b.phases, b.breakdown)
    assert folded_results[0].phases.get("compute", 0) == pytest.approx(0.5 + 4 * 0.25)


@pytest.mark.parametrize("platform", ["local", "hopper"])
def test_a_configured_transfer_mode_overrides_the_programs_calls(platform: str) -> None:
    """The interposer sets the config's transfer mode on each H5Dwrite's transfer list, so a
    captured collective call under `transfer_mode: independent` is an independent call."""
    machine = load_platform(platform)
    as_captured = validate_workload(folded(), "collective")
    independent_program = copy.deepcopy(folded())
    independent_program["files"][0]["calls"][0]["transfer"] = "independent"
    independent_program = validate_workload(independent_program, "independent")
    forced = {"dataset": {"transfer_mode": "independent"}}
    listed = {"write_paths": True}
    [overridden] = simulate(machine, as_captured, [forced], options=listed)
    [own, own_forced] = simulate(machine, independent_program, [{}, forced], options=listed)
    [collective] = simulate(machine, as_captured, [{}])
    assert (overridden.time_s, overridden.breakdown) == (own.time_s, own.breakdown)
    assert own_forced.time_s == own.time_s
    assert set(overridden.breakdown["write_paths"]) == {"independent"}
    assert overridden.time_s != collective.time_s


@pytest.mark.parametrize(("repeat", "message"), [
    ({"times": STEPS + 1, "origin_step": [1, 0]}, "repetition 5 leaves the dataset along axis 0"),
    ({"times": 2, "origin_step": [1]}, "origin_step: one value per axis"),
    ({"times": 0, "origin_step": [1, 0]}, "times"),
    ({"times": 2, "origin_step": [1, 0], "every": 3}, "every"),
])
def test_a_repeat_that_cannot_hold_is_refused_naming_it(repeat: dict, message: str) -> None:
    work = folded()
    work["files"][0]["calls"][0]["repeat"] = repeat
    with pytest.raises(UserError, match=message) as error:
        validate_workload(work, "w.yaml")
    assert "files[0].calls[0].repeat" in str(error.value)
