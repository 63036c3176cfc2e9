"""A command's cost estimate and its limits (iotwin.core.cost): the refusal names the input
that drives the estimate, the limits come from the options, else the environment, else
data/costs.yaml."""

from __future__ import annotations

import pytest
from iotwin.core import cost
from iotwin.core.cost import Cost, Driver, Limits
from iotwin.core.errors import UserError

GIB = 2**30
RANKS = Driver("spec.yaml: workloads[0].ranks", 10**6)
BUDGET = Driver("--budget", 1000)


def test_memory_over_the_limit_names_the_input_and_the_option_to_raise() -> None:
    estimate = Cost(10, 40 * GIB, BUDGET, RANKS)
    with pytest.raises(UserError) as refused:
        Limits(3600, 8 * GIB).check(estimate)
    assert str(refused.value) == (
        "spec.yaml: workloads[0].ranks = 1000000: estimated 40 GiB of memory, over the "
        "8.0 GiB limit; lower workloads[0].ranks or raise --max-memory")


def test_time_over_the_limit_names_the_count_and_how_it_multiplies() -> None:
    one = Cost(0.5, GIB, Driver("W.yaml"), Driver("W.yaml"))
    with pytest.raises(UserError) as refused:
        Limits(60, 8 * GIB).check(one.times(1000, BUDGET))
    assert str(refused.value) == (
        "--budget = 1000: estimated 8.33 min of CPU (1000 x 0.5 s), over the 60 s limit; "
        "lower --budget or raise --max-time")


def test_within_the_limits_the_estimate_is_returned() -> None:
    estimate = Cost(59, 8 * GIB, BUDGET, RANKS)
    assert Limits(60, 8 * GIB).check(estimate) is estimate


def test_work_in_sequence_adds_times_keeps_the_peak_and_the_larger_drivers() -> None:
    small = Cost(1, 4 * GIB, Driver("a"), Driver("a"))
    large = Cost(9, GIB, Driver("b"), Driver("b"))
    both = small.then(large)
    assert (both.seconds, both.memory_bytes) == (10, 4 * GIB)
    assert (both.time_driver.name, both.memory_driver.name) == ("b", "a")
    held = large.holding(2 * GIB, Driver("c"))
    assert (held.memory_bytes, held.memory_driver.name) == (3 * GIB, "c")


def test_limits_come_from_the_options_then_the_environment_then_the_data(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(cost.TIME_ENV, raising=False)
    monkeypatch.delenv(cost.MEMORY_ENV, raising=False)
    data = cost.constants()["limits"]
    assert cost.limits() == Limits(float(data["max_seconds"]), 8 * GIB)
    monkeypatch.setenv(cost.TIME_ENV, "2h")
    monkeypatch.setenv(cost.MEMORY_ENV, "512MiB")
    assert cost.limits() == Limits(7200, 512 * 2**20)
    assert cost.limits("30min", "1GiB") == Limits(1800, GIB)


@pytest.mark.parametrize(("option", "text", "name"), [
    ("--max-time", "soon", "--max-time"), ("--max-time", "-5", "--max-time"),
    ("--max-memory", "lots", "--max-memory")])
def test_a_limit_that_is_not_one_is_one_line_naming_it(option: str, text: str,
                                                        name: str) -> None:
    with pytest.raises(UserError) as refused:
        cost.limits(*((text, None) if option == "--max-time" else (None, text)))
    assert str(refused.value).startswith(f"{name}: expected a ")


def test_a_bad_environment_limit_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(cost.TIME_ENV, "a while")
    with pytest.raises(UserError, match=f"^{cost.TIME_ENV}: expected a duration"):
        cost.limits()
