"""Choosing the parameters a platform's rows can fit: from the sensitivity scan's effects."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from iotwin.validation.paper.sensitivity import (
    ParameterEffect,
    SelectionRule,
    choose_parameters,
    scan,
)

RULE = SelectionRule(min_effect=0.1, rows_per_parameter=2)


def effects() -> list[ParameterEffect]:
    return [
        ParameterEffect("disk", 1, 10, False, [1.0, 0.0, 1.0, 0.0]),
        ParameterEffect("link", 1, 10, False, [2.0, 0.0, 2.05, 0.0]),  # ~ disk, stronger
        ParameterEffect("latency", 0, 1, False, [0.0, -0.5, 0.0, -0.5]),
        ParameterEffect("lock", 0, 1, False, [0.05, 0.0, 0.0, 0.02]),
        ParameterEffect("stripes", 1, 8, True, [3.0, 3.0, 3.0, 3.0]),
    ]


def test_the_strongest_independent_effects_are_chosen_and_the_rest_say_why() -> None:
    found = effects()
    assert choose_parameters(found, 4, RULE) == ["link", "latency"]
    reasons = {e.name: e.reason for e in found}
    assert "link, latency" in reasons["disk"]  # collinear with what is chosen
    assert "10%" in reasons["lock"]
    assert reasons["stripes"].startswith("a small count")
    assert [e.chosen for e in found] == [False, True, True, False, False]


def test_rows_limit_the_number_of_parameters() -> None:
    found = effects()
    assert choose_parameters(found, 3, RULE) == ["link"]  # 3 rows, 2 per parameter: one
    assert "at most 1" in next(e.reason for e in found if e.name == "latency")


@dataclass(frozen=True)
class LinearModel:
    """rate = bandwidth, and a latency that touches nothing."""

    values: dict[str, float] = field(default_factory=lambda: {"bandwidth": 100.0,
                                                              "latency": 0.1})
    name: str = "linear"
    data: dict[str, Any] = field(default_factory=dict)

    def free_parameters(self) -> dict[str, tuple[float, float, float]]:
        bounds = {"bandwidth": (50.0, 400.0), "latency": (0.0, 1.0)}
        return {k: (self.values[k], *bounds[k]) for k in bounds}

    def with_values(self, values: dict[str, float]) -> LinearModel:
        return LinearModel({**self.values, **values})


def test_scan_moves_each_parameter_between_its_bounds() -> None:
    found = {e.name: e for e in scan(LinearModel(), lambda m: [m.values["bandwidth"]] * 2)}
    assert found["bandwidth"].changes == [math.log(8.0)] * 2
    assert found["latency"].changes == [0.0, 0.0]
